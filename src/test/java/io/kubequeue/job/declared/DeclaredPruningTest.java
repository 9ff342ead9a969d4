package io.kubequeue.job.declared;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Consumer;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kubequeue.testing.Declarations;
import io.kubequeue.resources.ContainerDefaults;
import io.kubequeue.resources.PodDefaults;

/**
 * The informer's copy of a declared kind's job ({@link DeclaredJobKind#pruned}) keeps what the declaration reads and
 * nothing else: a tenant's large unread fields (a JobSet's Job template annotations, an AppWrapper component's
 * wrapped object, any spec or status field) are not cached; and every read the kind makes gives on the copy exactly
 * what it gives on the job, for each preset, the samples and the hostile jobs of the other tests; pruning a copy
 * again changes nothing.
 */
class DeclaredPruningTest {

    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
    private static final Path PRESETS = Path.of("helm", "kube-queue", "presets");
    private static final PodDefaults CPU_1 = new PodDefaults(
            new ContainerDefaults(Map.of("cpu", new Quantity("1")), Map.of()), Map.of());

    /** Preset → the upstream samples of its kind (as PresetsTest reads them). */
    private static final Map<String, List<String>> SAMPLES = Map.of(
            "jobset", List.of("jobset_paralleljobs.yaml", "jobset_success-policy.yaml"),
            "rayjob", List.of("kuberay_ray-job.kueue-toy-sample.yaml"),
            "raycluster", List.of("kuberay_ray-cluster.sample.yaml"),
            "trainjob", List.of("trainer_03-kueue-integration.yaml"),
            "appwrapper", List.of("appwrapper_wrapped-job.yaml", "appwrapper_wrapped-pytorch-job.yaml"),
            "paddlejob", List.of("training-operator_paddlepaddle_simple-cpu.yaml"),
            "xgboostjob", List.of("training-operator_xgboostjob_v1_rabit_test.yaml"),
            "jaxjob", List.of("training-operator_jax_demo.yaml"));

    private static DeclaredJobKind preset(String name) {
        try {
            QueuedKind declaration = SERIALIZATION.unmarshal(Files.readString(PRESETS.resolve(name + ".yaml")),
                    QueuedKind.class);
            return DeclaredJobKind.of(declaration.getMetadata().getName(), declaration.getSpec(), SERIALIZATION);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static DeclaredJobKind kind(String spec) {
        return DeclaredJobKind.of("test", SERIALIZATION.unmarshal(spec, QueuedKindSpec.class), SERIALIZATION);
    }

    private static GenericKubernetesResource sample(String file) {
        return PresetsTest.sample(file);
    }

    private static GenericKubernetesResource edit(GenericKubernetesResource job, Consumer<ObjectNode> change) {
        return PresetsTest.edit(job, change);
    }

    private static GenericKubernetesResource job(String json) {
        return SERIALIZATION.unmarshal(json, GenericKubernetesResource.class);
    }

    private static JsonNode node(String json) {
        return SERIALIZATION.unmarshal(json, JsonNode.class);
    }

    /** Every read the kind makes of a job, each as its result or the message of what it throws. */
    private static List<String> reads(DeclaredJobKind kind, GenericKubernetesResource job) {
        List<String> reads = new ArrayList<>();
        read(reads, "suspendMarks", () -> kind.suspendMarks(job));
        read(reads, "held", () -> kind.held(job));
        read(reads, "request", () -> kind.request(job));
        read(reads, "request with PodDefaults", () -> kind.request(job, CPU_1));
        read(reads, "priority", () -> kind.priority(job));
        read(reads, "finished", () -> kind.finished(job));
        read(reads, "started", () -> kind.started(job));
        read(reads, "stopMark", () -> kind.stopMark(job));
        read(reads, "activeDeadline", () -> kind.activeDeadline(job));
        read(reads, "completionTime", () -> kind.completionTime(job));
        return reads;
    }

    private static void read(List<String> reads, String what, Callable<Object> read) {
        try {
            reads.add(what + ": " + read.call());
        } catch (Exception e) {
            reads.add(what + " throws " + e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    private static String json(GenericKubernetesResource job) {
        return SERIALIZATION.asJson(job);
    }

    /** The copy reads as the job, and is its own copy. */
    private static GenericKubernetesResource assertPrunedReadsAlike(DeclaredJobKind kind, GenericKubernetesResource job,
                                                                  String name) {
        GenericKubernetesResource copy = kind.pruned(job);
        assertEquals(reads(kind, job), reads(kind, copy), name);
        assertEquals(json(copy), json(kind.pruned(copy)), name + ": pruning twice is pruning once");
        assertEquals(job.getApiVersion(), copy.getApiVersion(), name);
        assertEquals(job.getKind(), copy.getKind(), name);
        assertEquals(job.getMetadata().getName(), copy.getMetadata().getName(), name);
        return copy;
    }

    // ---- (1) what is not read is not kept ------------------------------------------------------------------------

    @Test
    void aJobSetsLargeUnreadFieldsAreNotCached() {
        DeclaredJobKind kind = preset("jobset");
        GenericKubernetesResource job = edit(sample("jobset_paralleljobs.yaml"), json -> {
            ObjectNode spec = (ObjectNode) json.get("spec");
            spec.put("suspend", true);
            ObjectNode jobTemplate = (ObjectNode) spec.get("replicatedJobs").get(0).get("template");
            ObjectNode annotations = jobTemplate.with("metadata").with("annotations");
            ObjectNode podAnnotations = ((ObjectNode) jobTemplate.get("spec").get("template")).with("metadata")
                    .with("annotations");
            for (int i = 0; i < 10_000; i++) {
                annotations.put("example.com/a" + i, "value " + i);
                podAnnotations.put("example.com/p" + i, "value " + i);
            }
            spec.put("unread", "x".repeat(100_000));
            spec.set("network", node("{\"subdomain\": \"" + "y".repeat(10_000) + "\"}"));
            json.set("status", node("""
                    {"conditions": [{"type": "Suspended", "status": "True", "message": "%s",
                                     "lastTransitionTime": "2026-01-01T00:00:00Z"}],
                     "replicatedJobsStatus": [{"name": "workers", "ready": 0, "junk": "%s"}],
                     "terminalState": "%s"}
                    """.formatted("m".repeat(10_000), "j".repeat(10_000), "t".repeat(10_000))));
        });
        GenericKubernetesResource copy = assertPrunedReadsAlike(kind, job, "jobset");
        int whole = json(job).length();
        int pruned = json(copy).length();
        assertTrue(whole > 500_000, "the job is large: " + whole);
        assertTrue(pruned < whole / 20, "the copy is under 5% of the job: " + pruned + " of " + whole + ": "
                + json(copy));
        JsonNode spec = (JsonNode) copy.getAdditionalProperties().get("spec");
        assertNull(spec.get("unread"));
        assertNull(spec.get("network"));
        assertNull(spec.get("replicatedJobs").get(0).get("template").get("metadata"));
        assertNull(spec.get("replicatedJobs").get(0).get("template").get("spec").get("template").get("metadata"));
        JsonNode status = (JsonNode) copy.getAdditionalProperties().get("status");
        assertTrue(status == null || status.get("terminalState") == null && status.get("replicatedJobsStatus") == null,
                String.valueOf(status));
        System.out.println("DeclaredPruningTest: a JobSet of " + whole + " characters of JSON is cached as "
                + pruned + " (" + (100.0 * pruned / whole) + "%)");
    }

    /** An AppWrapper component's wrapped object is kept only where its podSets' paths name templates. */
    @Test
    void anAppWrappersWrappedObjectIsKeptOnlyAtItsTemplates() {
        DeclaredJobKind kind = preset("appwrapper");
        GenericKubernetesResource job = edit(sample("appwrapper_wrapped-pytorch-job.yaml"), json -> {
            ObjectNode component = (ObjectNode) json.get("spec").get("components").get(0);
            component.set("podSets", node("""
                    [{"replicas": 1, "path": "template.spec.pytorchReplicaSpecs.Master.template"},
                     {"replicas": 2, "path": "template.spec.pytorchReplicaSpecs.Worker.template"}]
                    """));
            ObjectNode wrapped = (ObjectNode) component.get("template");
            ArrayNode junk = wrapped.with("spec").putArray("junk");
            for (int i = 0; i < 10_000; i++) {
                junk.add(JSON.objectNode().put("i", i));
            }
        });
        GenericKubernetesResource copy = assertPrunedReadsAlike(kind, job, "appwrapper");
        assertEquals(3000L, kind.request(copy).get("cpu"));
        assertTrue(json(copy).length() < json(job).length() / 20, json(copy));
        assertFalse(json(copy).contains("junk"), json(copy));
    }

    /**
     * More items under a {@code [*]} path than are read: the copy keeps only the items' places (not their contents),
     * so it is small, and it is refused when read with the same message as the job.
     */
    @Test
    void aJobWithMoreItemsThanAreReadIsCachedSmallAndRefusedAlike() {
        DeclaredJobKind kind = kind(Declarations.BY_LIST);
        StringBuilder groups = new StringBuilder();
        for (int i = 0; i < 1_200; i++) {
            groups.append(i == 0 ? "" : ",").append("{\"replicas\": 1, \"junk\": \"").append("z".repeat(1000))
                    .append("\", \"template\": ").append(TEMPLATE).append("}");
        }
        GenericKubernetesResource job = job(JOB.formatted("ListJob",
                "{\"suspend\": true, \"groups\": [" + groups + "]}"));
        GenericKubernetesResource copy = assertPrunedReadsAlike(kind, job, "1,200 groups");
        assertTrue(reads(kind, copy).get(2).startsWith("request throws InvalidJobException"), reads(kind, copy).get(2));
        assertTrue(kind.held(copy));
        assertTrue(json(copy).length() < json(job).length() / 20, json(copy).length() + " of " + json(job).length());
    }

    /**
     * A field read as a value that is a huge collection (a count that is an object of 100,000 fields, or a list of as
     * many items): the copy keeps it at no more than 1,001 entries, and the job is refused alike ("more than 1000").
     */
    @Test
    void aHugeCollectionWhereAValueIsReadIsCachedAtTheSizeAMessageCounts() {
        DeclaredJobKind kind = kind(Declarations.BY_LIST);
        StringBuilder fields = new StringBuilder();
        StringBuilder items = new StringBuilder();
        for (int i = 0; i < 100_000; i++) {
            fields.append(i == 0 ? "" : ",").append("\"k").append(i).append("\": ").append(i);
            items.append(i == 0 ? "" : ",").append(i);
        }
        for (String replicas : List.of("{" + fields + "}", "[" + items + "]")) {
            GenericKubernetesResource job = job(JOB.formatted("ListJob",
                    "{\"suspend\": true, \"groups\": [{\"replicas\": " + replicas + ", \"template\": " + TEMPLATE
                            + "}]}"));
            GenericKubernetesResource copy = assertPrunedReadsAlike(kind, job, replicas.substring(0, 1));
            assertTrue(reads(kind, copy).get(2).contains("more than 1000"), reads(kind, copy).get(2));
            assertTrue(json(copy).length() < 20_000, json(copy).length() + " of " + json(job).length());
        }
    }

    // ---- (2) every read is the same on the copy -------------------------------------------------------------------

    @Test
    void everyPresetReadsItsSamplesCopiesAsTheSamples() {
        for (Map.Entry<String, List<String>> preset : SAMPLES.entrySet()) {
            DeclaredJobKind kind = preset(preset.getKey());
            for (String file : preset.getValue()) {
                GenericKubernetesResource sample = sample(file);
                for (GenericKubernetesResource job : variants(sample)) {
                    assertPrunedReadsAlike(kind, job, preset.getKey() + " " + file + " " + json(job));
                }
            }
        }
    }

    /**
     * Property: for each preset, its samples changed at random (a field of any level set to another value of any
     * type, or removed; a list item added or nulled), every read gives on the copy what it gives on the job, and the
     * copy is its own copy. Seeded, so a failure repeats.
     */
    @Test
    void randomlyChangedSamplesReadAlikeOnTheirCopies() {
        java.util.Random random = new java.util.Random(31);
        List<String> values = List.of("null", "0", "1", "3", "-1", "2.5", "true", "\"True\"", "\"Complete\"",
                "\"Succeeded\"", "\"template\"", "\"template.spec.template\"", "\"2026-01-01T00:00:00Z\"", "{}",
                "[]", "[null]", "{\"a\": {\"b\": [1]}}", "[{\"type\": \"Failed\", \"status\": \"True\"}]",
                TEMPLATE, "{\"requests\": {\"cpu\": \"2\"}, \"x\": 1}");
        for (Map.Entry<String, List<String>> preset : SAMPLES.entrySet()) {
            DeclaredJobKind kind = preset(preset.getKey());
            for (String file : preset.getValue()) {
                for (int round = 0; round < 150; round++) {
                    GenericKubernetesResource job = edit(sample(file), json -> {
                        if (!json.has("status")) {
                            json.set("status", node("{\"conditions\": [{\"type\": \"Complete\","
                                    + " \"status\": \"True\"}], \"phase\": \"Failed\"}"));
                        }
                        for (int change = 1 + random.nextInt(4); change > 0; change--) {
                            List<JsonNode> containers = new ArrayList<>();
                            everyContainer(json.get("spec"), containers);
                            everyContainer(json.get("status"), containers);
                            JsonNode at = containers.get(random.nextInt(containers.size()));
                            JsonNode value = node(values.get(random.nextInt(values.size())));
                            if (at instanceof ObjectNode object && object.size() > 0) {
                                List<String> names = new ArrayList<>();
                                object.fieldNames().forEachRemaining(names::add);
                                String name = names.get(random.nextInt(names.size()));
                                if (random.nextInt(5) == 0) {
                                    object.remove(name);
                                } else {
                                    object.set(name, value);
                                }
                            } else if (at instanceof ArrayNode array) {
                                if (array.size() > 0 && random.nextBoolean()) {
                                    array.set(random.nextInt(array.size()), value);
                                } else {
                                    array.add(array.size() > 0 ? array.get(0).deepCopy() : value);
                                }
                            }
                        }
                    });
                    assertPrunedReadsAlike(kind, job, preset.getKey() + " " + file + " round " + round + ": "
                            + json(job));
                }
            }
        }
    }

    private static void everyContainer(JsonNode node, List<JsonNode> into) {
        if (node == null || !node.isContainerNode()) {
            return;
        }
        into.add(node);
        node.elements().forEachRemaining(child -> everyContainer(child, into));
    }

    /** The sample, held, with each status a preset reads or not, and with its counts and paths written badly. */
    private static List<GenericKubernetesResource> variants(GenericKubernetesResource sample) {
        List<GenericKubernetesResource> jobs = new ArrayList<>();
        jobs.add(sample);
        jobs.add(edit(sample, json -> ((ObjectNode) json.get("spec")).put("suspend", true)
                .put("activeDeadlineSeconds", 600)));
        jobs.add(edit(sample, json -> ((ObjectNode) json.get("spec")).put("suspend", "true")
                .put("activeDeadlineSeconds", "600")));
        for (String status : List.of(
                "{\"conditions\": [{\"type\": \"Completed\", \"status\": \"True\", \"lastTransitionTime\":"
                        + " \"2026-01-01T00:00:00Z\", \"message\": \"done\"}]}",
                "{\"conditions\": [{\"type\": \"Failed\", \"status\": \"True\", \"lastTransitionTime\":"
                        + " \"2026-01-01T00:00:00Z\"}, {\"type\": \"Complete\", \"status\": \"True\","
                        + " \"lastTransitionTime\": \"2026-02-01T00:00:00Z\"}, {\"type\": \"Complete\","
                        + " \"status\": \"False\", \"lastTransitionTime\": \"2026-03-01T00:00:00Z\"}]}",
                "{\"conditions\": [{\"type\": \"Succeeded\", \"status\": \"True\", \"lastTransitionTime\": 7}]}",
                "{\"conditions\": {\"a\": {\"type\": \"Complete\", \"status\": \"True\"}}}",
                "{\"conditions\": [null, 3, {\"type\": [\"Complete\"], \"status\": \"True\"}]}",
                "{\"phase\": \"Succeeded\", \"jobDeploymentStatus\": \"Complete\", \"endTime\":"
                        + " \"2026-01-01T00:10:00Z\", \"startTime\": \"2026-01-01T00:00:00Z\"}",
                "{\"phase\": \"Running\", \"jobDeploymentStatus\": {\"a\": 1}, \"endTime\": \"not a time\"}",
                "{\"phase\": [\"Failed\"], \"endTime\": {\"t\": 1}}")) {
            jobs.add(edit(sample, json -> json.set("status", node(status))));
        }
        // counts, templates and resources written badly, at whatever paths the presets read
        for (String bad : List.of("\"3\"", "-1", "0", "2.5", "{}", "[1, 2]", "{\"a\": {\"b\": 1}}", "null",
                "\"template\"", "\"spec..x\"", "\"spec.*\"")) {
            jobs.add(edit(sample, json -> everyObject(json.get("spec"), o -> {
                for (String field : List.of("replicas", "parallelism", "completions", "numOfHosts", "numNodes",
                        "path", "resourcesPerNode")) {
                    if (o.has(field)) {
                        o.set(field, node(bad));
                    }
                }
            })));
        }
        jobs.add(edit(sample, json -> everyObject(json.get("spec"), o -> {
            if (o.has("containers")) {
                o.put("priorityClassName", "high").put("priority", 7).put("hostname", "h");
            }
        })));
        jobs.add(edit(sample, json -> everyObject(json.get("spec"), o -> {
            if (o.has("containers")) {
                o.put("containers", "not containers");
            }
        })));
        return jobs;
    }

    /** Applies {@code change} to every object under {@code node} (a sample is small: recursion is fine). */
    private static void everyObject(JsonNode node, Consumer<ObjectNode> change) {
        if (node == null) {
            return;
        }
        if (node instanceof ObjectNode object) {
            change.accept(object);
        }
        List<JsonNode> children = new ArrayList<>();
        node.elements().forEachRemaining(children::add);
        children.forEach(child -> everyObject(child, change));
    }

    private static final String JOB = """
            {"apiVersion": "example.com/v1", "kind": "%s", "metadata": {"name": "j", "namespace": "team-a",
             "annotations": {"a": "b"}},
             "spec": %s}
            """;
    private static final String TEMPLATE = "{\"metadata\": {\"labels\": {\"a\": \"b\"}}, \"spec\": {\"containers\":"
            + " [{\"name\": \"c\", \"image\": \"big\", \"resources\": {\"requests\": {\"cpu\": \"1\"}}}]}}";
    /** Every field a declaration reads, some in the same places, with nested sets, resources and path fields. */
    private static final String EVERYTHING = """
            {"group": "example.com", "version": "v1", "kind": "AllJob", "plural": "alljobs",
             "hold": {"field": "spec.hold.now"},
             "priorityClass": "spec.priority",
             "started": "status.startTime",
             "activeDeadlineSeconds": "spec.deadline",
             "finished": {"conditions": ["Done", "Failed"], "at": "status.endedAt"},
             "podSets": [
               {"name": "top", "each": "spec.groups[*]", "template": "template", "optional": true,
                "counts": [{"field": "replicas"}, {"field": "parallelism", "atMost": "completions"}],
                "podSets": [{"each": "parts.*", "templatePathFrom": "path", "optional": true,
                             "counts": [{"field": "n"}]}]},
               {"name": "nodes", "resources": "spec.node.resources", "counts": [{"field": "spec.node.count"}]},
               {"name": "again", "each": "spec.groups[*].parts.*", "resources": "resources"}],
             "pods": {"labelKey": "example.com/job"}}
            """;

    @Test
    void hostileAndOddJobsReadAlikeOnTheirCopies() {
        DeclaredJobKind byMap = kind(Declarations.BY_MAP);
        for (String key : List.of("x[", "x[y]", "Worker.template", ".", "a.b[c].d", "[*]", "*")) {
            assertPrunedReadsAlike(byMap, job(JOB.formatted("MapJob", """
                    {"suspend": true, "replicaSpecs": {"Worker": {"replicas": 2, "template": %s},
                                                       "%s": {"replicas": 1, "template": %s}}}
                    """.formatted(TEMPLATE, key, TEMPLATE))), key);
        }
        DeclaredJobKind byList = kind(Declarations.BY_LIST);
        for (String groups : List.of("[]", "null", "{}", "[null, 1, \"s\", [], {}]",
                "[{\"replicas\": 3, \"template\": \"a pod\"}]", "[{\"replicas\": 3, \"template\": [1, 2]}]",
                "[{\"template\": {\"spec\": {\"containers\": \"c\"}}}]", "[{\"replicas\": 2}]",
                "[{\"replicas\": 0}, {\"replicas\": {\"big\": [1, 2, 3]}, \"template\": " + TEMPLATE + "}]",
                "[{\"template\": {\"spec\": {\"containers\": [{\"name\": \"c\", \"resources\": {\"requests\":"
                        + " {\"cpu\": \"lots\"}}}]}}}]",
                "[{\"replicas\": 1000, \"template\": " + TEMPLATE + "}, {\"replicas\": 1000000, \"template\": "
                        + TEMPLATE + "}]")) {
            assertPrunedReadsAlike(byList, job(JOB.formatted("ListJob", "{\"suspend\": true, \"groups\": "
                    + groups + "}")), groups);
        }
        DeclaredJobKind everything = kind(EVERYTHING);
        String template = TEMPLATE.replace("\"containers\"", "\"priorityClassName\": \"low\", \"containers\"");
        for (String spec : List.of(
                "{}",
                "{\"hold\": {\"now\": true}, \"priority\": \"high\", \"deadline\": 60, \"groups\": [{\"replicas\": 2,"
                        + " \"parallelism\": 5, \"completions\": 3, \"template\": " + template + ", \"parts\": {\"a\":"
                        + " {\"path\": \"template\", \"n\": 2, \"resources\": {\"requests\": {\"memory\": \"1Gi\"},"
                        + " \"claims\": [{\"name\": \"x\"}]}}, \"b\": {\"path\": \"parts.a\", \"n\": 0}, \"c\":"
                        + " {\"path\": \"nowhere\"}}}], \"node\": {\"count\": 4, \"resources\": {\"limits\":"
                        + " {\"cpu\": \"2\"}, \"junk\": \"j\"}}}",
                "{\"hold\": {\"now\": \"yes\"}, \"priority\": {\"name\": \"high\"}, \"deadline\": [60],"
                        + " \"groups\": [{\"template\": " + TEMPLATE + ", \"parts\": {\"a\": {\"path\": 7}}}]}",
                "{\"hold\": true, \"groups\": [{\"template\": " + TEMPLATE + ", \"parts\": {\"a\": {\"path\":"
                        + " \"spec.*\"}}}]}",
                "{\"groups\": [{\"template\": " + TEMPLATE + ", \"parts\": {\"a\": {\"path\": \"a..b\"}}}],"
                        + " \"node\": {\"resources\": {\"requests\": {\"cpu\": \"-1\"}}}}",
                "{\"groups\": [{\"template\": " + TEMPLATE + ", \"parts\": {\"a\": {\"path\": \"parts\"},"
                        + " \"b\": {\"path\": \"template.spec\"}}}], \"node\": {\"resources\": \"r\"}}")) {
            for (String status : List.of("{}", "{\"startTime\": {\"a\": 1}, \"endedAt\": \"2026-01-01T00:00:00Z\"}",
                    "{\"startTime\": \"s\", \"conditions\": [{\"type\": \"Done\", \"status\": \"True\","
                            + " \"lastTransitionTime\": \"2026-01-02T00:00:00Z\", \"reason\": \"r\"}]}")) {
                GenericKubernetesResource job = job(JOB.formatted("AllJob", spec));
                job.setAdditionalProperty("status", SERIALIZATION.unmarshal(status, Map.class));
                assertPrunedReadsAlike(everything, job, spec + " " + status);
            }
        }
    }

    /** The declarations of the other tests: DeclaredSameAsBuiltInTest's TFJob, InvalidDeclarationsTest's Batch. */
    @Test
    void theOtherTestsDeclarationsReadTheirJobsCopiesAlike() {
        DeclaredJobKind tf = kind("""
                {"group": "kubeflow.org", "version": "v1", "kind": "TFJob", "plural": "tfjobs",
                 "hold": {"field": "spec.runPolicy.suspend"},
                 "podSets": [{"name": "replicas", "each": "spec.tfReplicaSpecs.*", "template": "template",
                              "counts": [{"field": "replicas"}]}],
                 "finished": {"conditions": ["Succeeded", "Failed"]},
                 "pods": {"labelKey": "training.kubeflow.org/job-name", "ownedByJob": true},
                 "stopsWhenSuspended": true, "activeDeadlineSeconds": "spec.runPolicy.activeDeadlineSeconds"}
                """);
        for (String file : List.of("training-operator_tf_job_mnist.yaml",
                "training-operator_mnist_with_summaries_tf_job_mnist.yaml", "training-operator_simple.yaml")) {
            for (GenericKubernetesResource job : variants(sample(file))) {
                assertPrunedReadsAlike(tf, job, file);
            }
        }
        DeclaredJobKind batch = kind(Declarations.BATCH);
        for (String replicas : List.of("3", "\"3\"", "2.5", "3.0", "-1", "1000001", "1e999999999", "true", "[3]",
                "{}", "99999999999999999999999", "\"" + "9".repeat(1000) + "\"")) {
            assertPrunedReadsAlike(batch, job(JOB.formatted("Batch", "{\"groups\": [{\"replicas\": " + replicas
                    + ", \"template\": " + TEMPLATE + "}]}")), replicas);
        }
    }
}
