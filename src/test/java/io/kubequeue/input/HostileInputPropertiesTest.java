package io.kubequeue.input;

import java.util.List;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import io.kubequeue.job.JobKind;

/**
 * Structured hostile input for every parser of tenant input (issue 25): deep nesting (to past the API server's
 * 10,000 levels), huge strings and arrays, quantities with big and tiny exponents and many digits, YAML with aliases.
 * The contract is {@link HostileChecks}: no exception but the documented ones, work counted (tokens, digits).
 * Jazzer ({@link HostileInputFuzzTest}) finds what these generators do not think of.
 */
class HostileInputPropertiesTest {

    // ---- quantities -------------------------------------------------------------------------------------------

    @Property(tries = 400)
    void everyQuantityIsReadWithinBoundsOrRefused(@ForAll("quantities") String quantity) {
        HostileChecks.quantity(quantity);
        HostileChecks.minResources("cpu: " + quantity + "\nmemory: \"" + quantity + "\"");
    }

    @Provide
    Arbitrary<String> quantities() {
        Arbitrary<String> digits = Arbitraries.strings().numeric().ofMinLength(1).ofMaxLength(90);
        Arbitrary<String> fraction = Arbitraries.strings().numeric().ofMaxLength(80).map(f -> f.isEmpty() ? "" : "." + f);
        Arbitrary<String> exponent = Arbitraries.oneOf(
                Arbitraries.integers().between(-40, 40).map(String::valueOf),
                Arbitraries.of("999999999", "30000000", "-999999999", "2147483647", "-2147483648", "2147483648",
                        "99999999999999999999", "+31", "-31", "30", "-30", "007", ""),
                Arbitraries.strings().numeric().ofMinLength(1).ofMaxLength(40));
        Arbitrary<String> suffix = Arbitraries.oneOf(
                Arbitraries.of("", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "n", "u"),
                Combinators.combine(Arbitraries.of("e", "E"), exponent).as(String::concat));
        return Combinators.combine(Arbitraries.of("", "+", "-"), digits, fraction, suffix)
                .as((sign, d, f, s) -> sign + d + f + s);
    }

    // ---- deep and wide JSON in each kind's objects -------------------------------------------------------------

    @Property(tries = 60)
    void everyKindReadsDeepWideAndLongObjectsWithinBounds(@ForAll("jobs") String json) {
        for (JobKind<?> kind : HostileChecks.KINDS) {
            HostileChecks.job(kind, json);
        }
        HostileChecks.manifest(json);
    }

    @Provide
    Arbitrary<String> jobs() {
        Arbitrary<String> hostile = hostileJson();
        return Combinators.combine(Arbitraries.of(JOB_SHAPES), hostile, quantities())
                .as((shape, value, cpu) -> shape.replace("HOSTILE", value).replace("CPU", cpu));
    }

    /** Job objects of every kind with a place for hostile JSON (HOSTILE) and a quantity (CPU). */
    private static final List<String> JOB_SHAPES = List.of(
            "{\"apiVersion\":\"argoproj.io/v1alpha1\",\"kind\":\"Workflow\",\"metadata\":{\"name\":\"w\",\"namespace\":"
                    + "\"team-a\",\"annotations\":{\"kube-queue/min-resources\":\"cpu: CPU\"}},\"spec\":{\"suspend\":"
                    + "HOSTILE,\"podPriority\":HOSTILE,\"podPriorityClassName\":HOSTILE,\"x\":HOSTILE},\"status\":"
                    + "{\"phase\":HOSTILE,\"nodes\":HOSTILE}}",
            "{\"apiVersion\":\"kubeflow.org/v1\",\"kind\":\"TFJob\",\"metadata\":{\"name\":\"t\",\"namespace\":\"team-a\"},"
                    + "\"spec\":{\"runPolicy\":{\"suspend\":HOSTILE},\"tfReplicaSpecs\":{\"Worker\":{\"replicas\":"
                    + "HOSTILE,\"template\":{\"spec\":{\"priorityClassName\":HOSTILE,\"containers\":[{\"name\":\"w\","
                    + "\"x\":HOSTILE,\"resources\":{\"requests\":{\"cpu\":\"CPU\",\"memory\":HOSTILE}}}]}}}}},"
                    + "\"status\":{\"conditions\":HOSTILE,\"startTime\":HOSTILE}}",
            "{\"apiVersion\":\"kubeflow.org/v1\",\"kind\":\"PyTorchJob\",\"metadata\":{\"name\":\"p\"},\"spec\":"
                    + "{\"pytorchReplicaSpecs\":HOSTILE}}",
            "{\"apiVersion\":\"kubeflow.org/v2beta1\",\"kind\":\"MPIJob\",\"metadata\":{\"name\":\"m\"},\"spec\":"
                    + "{\"mpiReplicaSpecs\":{\"Launcher\":{\"template\":HOSTILE}}}}",
            "{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"j\",\"namespace\":\"team-a\","
                    + "\"annotations\":{\"a\":HOSTILE}},\"spec\":{\"suspend\":true,\"parallelism\":HOSTILE,\"template\""
                    + ":{\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"CPU\"}}},"
                    + "HOSTILE]}}}}");

    /**
     * JSON values a tenant can write: nested objects and arrays (up to past 10,000 levels), a long string, a long
     * key, a long array, a long number, scalars of the wrong type.
     */
    static Arbitrary<String> hostileJson() {
        Arbitrary<Integer> depth = Arbitraries.oneOf(Arbitraries.integers().between(0, 70),
                Arbitraries.of(999, 1_000, 1_001, 1_200, 10_000, 10_016, 10_017, 12_000));
        return Arbitraries.oneOf(
                depth.map(d -> "{\"a\":".repeat(d) + "1" + "}".repeat(d)),
                depth.map(d -> "[".repeat(d) + "]".repeat(d)),
                Arbitraries.integers().between(0, 300_000).map(n -> "\"" + "x".repeat(n) + "\""),
                Arbitraries.integers().between(0, 100_000).map(n -> "{\"" + "k".repeat(n) + "\":1}"),
                Arbitraries.integers().between(0, 20_000).map(n -> "[" + "{},".repeat(n) + "{}]"),
                Arbitraries.integers().between(1, 1_200).map(n -> "1".repeat(n)),
                Arbitraries.of("true", "false", "null", "\"true\"", "-1", "1e999999999", "2147483648", "{}", "[]",
                        "\"1e999999999\"", "1.5", "\"\""));
    }

    // ---- quota objects -----------------------------------------------------------------------------------------

    @Property(tries = 60)
    void quotaObjectsAreReadWithinBounds(@ForAll("trees") String tree, @ForAll("quotas") String quota) {
        HostileChecks.tree(tree);
        HostileChecks.resourceQuota(quota);
    }

    @Provide
    Arbitrary<String> trees() {
        Arbitrary<Integer> levels = Arbitraries.oneOf(Arbitraries.integers().between(1, 70),
                Arbitraries.of(500, 2_000, 5_000));
        Arbitrary<String> deep = Combinators.combine(levels, quantities()).as((n, cpu) ->
                "{\"apiVersion\":\"scheduling.sigs.k8s.io/v1beta1\",\"kind\":\"ElasticQuotaTree\",\"metadata\":"
                        + "{\"name\":\"t\"},\"spec\":{\"root\":" + "{\"name\":\"n\",\"max\":{\"cpu\":\"" + cpu
                        + "\"},\"children\":[".repeat(n) + "{\"name\":\"leaf\"}" + "]}".repeat(n) + "}}");
        Arbitrary<String> odd = Combinators.combine(hostileJson(), quantities()).as((value, cpu) ->
                "{\"apiVersion\":\"scheduling.sigs.k8s.io/v1beta1\",\"kind\":\"ElasticQuotaTree\",\"metadata\":"
                        + "{\"name\":\"t\",\"annotations\":{\"kube-queue/admission-timeouts\":\"root: 1m\"}},\"spec\":"
                        + "{\"root\":{\"name\":\"root\",\"min\":{\"cpu\":\"" + cpu + "\"},\"max\":{\"cpu\":\"" + cpu
                        + "\",\"memory\":" + value + "},\"children\":[{\"name\":\"a\",\"namespaces\":" + value + "}]}}}");
        return Arbitraries.oneOf(deep, odd);
    }

    @Provide
    Arbitrary<String> quotas() {
        return Combinators.combine(quantities(), quantities(), hostileJson()).as((hard, used, value) ->
                "{\"apiVersion\":\"v1\",\"kind\":\"ResourceQuota\",\"metadata\":{\"name\":\"q\",\"namespace\":\"team-a\","
                        + "\"annotations\":{\"kube-queue/admission-timeout\":\"" + hard + "\"}},\"spec\":{\"hard\":{"
                        + "\"cpu\":\"" + hard + "\",\"requests.memory\":\"" + used + "\",\"x\":" + value + "}},"
                        + "\"status\":{\"hard\":{\"cpu\":\"" + used + "\"},\"used\":{\"cpu\":\"" + used + "\"}}}");
    }

    // ---- YAML annotations and manifests --------------------------------------------------------------------------

    @Property(tries = 150)
    void yamlAnnotationsAndManifestsAreReadWithinBounds(@ForAll("yaml") String yaml) {
        HostileChecks.flatYaml(yaml);
        HostileChecks.minResources(yaml);
        HostileChecks.admissionTimeouts(yaml);
        HostileChecks.manifest(yaml);
    }

    @Provide
    Arbitrary<String> yaml() {
        Arbitrary<Integer> n = Arbitraries.oneOf(Arbitraries.integers().between(0, 50),
                Arbitraries.of(1_000, 5_000, 100_000));
        return Arbitraries.oneOf(
                // billion laughs: each level nine aliases of the one before
                Arbitraries.integers().between(1, 12).map(levels -> {
                    StringBuilder b = new StringBuilder("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
                    for (int i = 1; i <= levels; i++) {
                        b.append("a").append(i).append(": &a").append(i).append(" [")
                                .append(String.join(", ", java.util.Collections.nCopies(9, "*a" + (i - 1))))
                                .append("]\n");
                    }
                    return b.toString();
                }),
                n.map(d -> "cpu: " + "[".repeat(d) + "]".repeat(d)),
                n.map(d -> "{a: ".repeat(d) + "1" + "}".repeat(d)),
                n.map(k -> "cpu: 1\n" + "x".repeat(k) + ": 2\n"),
                n.map(k -> java.util.stream.IntStream.range(0, k).mapToObj(i -> "r" + i + ": " + i)
                        .collect(java.util.stream.Collectors.joining("\n"))),
                n.map(k -> "cpu: \"" + "9".repeat(k) + "\""),
                n.map(k -> "---\n".repeat(k) + "cpu: 1"),
                quantities().map(q -> "root.team-a: " + q + "\nroot: " + q),
                Arbitraries.of("cpu: 1\ncpu: 2", "&x cpu: 1", "? [a]\n: 1", "cpu: !!binary aGk=", "cpu: *nope",
                        "cpu: &q 1\nmemory: *q", "[cpu, 1]", "\"cpu: 1\"", "", "null", "~", "cpu:", "cpu: null",
                        "{\"cpu\": 1e999999999}", "cpu: 1e999999999", "root.team-a: 400000000000d"));
    }
}
