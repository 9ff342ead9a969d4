package io.kubequeue.job.declared;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.marcnuri.helm.Helm;
import com.marcnuri.helm.TemplateCommand;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubequeue.job.JobKinds;
import io.kubequeue.testing.ApiServerRules;
import io.kubequeue.testing.Parse;

/**
 * The Helm chart's declared kinds (docs/kinds.md, "The chart"): each preset switched on installs its file's QueuedKind
 * and grants kube-queue exactly {@link JobKinds#VERBS} on the file's {@code spec.group}/{@code spec.plural}; a preset
 * left off installs and grants nothing; each {@code declaredKinds} entry gets the same rule; and what kube-queue needs
 * for every declaration (QueuedKinds read, their status patched, its own access reviewed) is granted always, by the
 * chart and by the plain manifests alike.
 */
class HelmChartDeclaredKindsTest {

    private static final Path CHART = Path.of("helm", "kube-queue");
    private static final KubernetesClient CLIENT = Parse.client();
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final Set<String> JOB_VERBS = new TreeSet<>(JobKinds.VERBS);

    /**
     * What kube-queue needs whatever is declared: the declarations, their status, its own access reviews, the CRDs
     * (read for their schema).
     */
    static final List<PolicyRule> ALWAYS = List.of(
            new PolicyRuleBuilder().withApiGroups("kube-queue.io").withResources("queuedkinds")
                    .withVerbs("get", "list", "watch").build(),
            new PolicyRuleBuilder().withApiGroups("kube-queue.io").withResources("queuedkinds/status")
                    .withVerbs("patch").build(),
            new PolicyRuleBuilder().withApiGroups("authorization.k8s.io").withResources("selfsubjectaccessreviews")
                    .withVerbs("create").build(),
            new PolicyRuleBuilder().withApiGroups("apiextensions.k8s.io").withResources("customresourcedefinitions")
                    .withVerbs("get").build());

    private static String render(Map<String, String> values) {
        TemplateCommand command = new Helm(CHART).template().withName("kq").withNamespace("kube-queue")
                .withKubeVersion("1.31.0");
        values.forEach(command::set);
        return command.call();
    }

    private static List<HasMetadata> objects(String rendered) {
        return CLIENT.load(new ByteArrayInputStream(rendered.getBytes(StandardCharsets.UTF_8))).items();
    }

    private static List<PolicyRule> controllerRules(String rendered) {
        return objects(rendered).stream().filter(ClusterRole.class::isInstance).map(ClusterRole.class::cast)
                .filter(r -> "kube-queue-controller".equals(r.getMetadata().getName())).findFirst()
                .orElseThrow(() -> new AssertionError("no ClusterRole kube-queue-controller")).getRules();
    }

    /** Every verb kube-queue's ClusterRole grants on {@code group/resource}, over all its rules. */
    private static Set<String> granted(List<PolicyRule> rules, String group, String resource) {
        Set<String> verbs = new TreeSet<>();
        for (PolicyRule rule : rules) {
            if (rule.getApiGroups().contains(group) && rule.getResources().contains(resource)) {
                verbs.addAll(rule.getVerbs());
            }
        }
        return verbs;
    }

    private static List<JsonNode> queuedKinds(String rendered) {
        return ApiServerRules.readAll(rendered).stream().filter(o -> "QueuedKind".equals(o.path("kind").asText()))
                .toList();
    }

    /** The preset switches of values.yaml, by name → default. */
    private static Map<String, Boolean> presetSwitches() throws IOException {
        Map<String, Boolean> switches = new TreeMap<>();
        YAML.readTree(CHART.resolve("values.yaml").toFile()).path("presets").fields()
                .forEachRemaining(e -> switches.put(e.getKey(), e.getValue().asBoolean(true)));
        return switches;
    }

    /** presets.rayJob → presets/rayjob.yaml. */
    private static Path presetFile(String name) {
        return CHART.resolve("presets").resolve(name.toLowerCase(Locale.ROOT) + ".yaml");
    }

    @Test
    void everyPresetIsOffByDefaultAndTheSchemaKnowsExactlyThem() throws IOException {
        Map<String, Boolean> switches = presetSwitches();
        assertEquals(Set.of("jobSet", "rayJob", "rayCluster", "trainJob", "appWrapper", "paddleJob", "xgboostJob",
                "jaxJob"), switches.keySet());
        switches.forEach((name, on) -> assertFalse(on, "presets." + name + " is off by default"));
        JsonNode schema = new ObjectMapper().readTree(CHART.resolve("values.schema.json").toFile());
        Set<String> inSchema = new TreeSet<>();
        schema.path("properties").path("presets").path("properties").fieldNames().forEachRemaining(inSchema::add);
        assertEquals(new TreeSet<>(switches.keySet()), inSchema, "presets in values.schema.json");
        assertEquals(0, YAML.readTree(CHART.resolve("values.yaml").toFile()).path("declaredKinds").size(),
                "declaredKinds is empty by default");
        assertThrows(Exception.class, () -> render(Map.of("presets.jobset", "true")), "a misspelt preset is refused");
    }

    @Test
    void withDefaultsNoQueuedKindIsInstalledAndOnlyTheAlwaysNeededRulesAreGranted() {
        String rendered = render(Map.of());
        assertEquals(List.of(), queuedKinds(rendered));
        List<PolicyRule> rules = controllerRules(rendered);
        assertEquals(Set.of(), granted(rules, "jobset.x-k8s.io", "jobsets"), "no preset on: no JobSet rule");
        assertTrue(rules.stream().noneMatch(r -> r.getApiGroups().contains("jobset.x-k8s.io")), rules.toString());
        for (PolicyRule always : ALWAYS) {
            assertTrue(rules.contains(always), "missing " + always + " in " + rules);
        }
    }

    /** kube-queue needs them whatever the values: with the read API and the visibility API off too. */
    @Test
    void theAlwaysNeededRulesAreInTheChartWhateverTheValuesAndInThePlainManifests() throws IOException {
        for (Map<String, String> values : List.of(Map.<String, String>of(),
                Map.of("readApi.authentication", "none", "visibility.enabled", "false", "serving.enabled", "false",
                        "queueGroupPlugin", "resourcequota"))) {
            List<PolicyRule> rules = controllerRules(render(values));
            for (PolicyRule always : ALWAYS) {
                assertTrue(rules.contains(always), values + ": missing " + always + " in " + rules);
            }
        }
        Path fragment = Path.of("src", "main", "kubernetes", "kubernetes.yml");
        List<HasMetadata> manifests;
        try (InputStream in = Files.newInputStream(fragment)) {
            manifests = CLIENT.load(in).items();
        }
        List<PolicyRule> rules = manifests.stream().filter(ClusterRole.class::isInstance).map(ClusterRole.class::cast)
                .filter(r -> "kube-queue-controller".equals(r.getMetadata().getName())).findFirst().orElseThrow()
                .getRules();
        for (PolicyRule always : ALWAYS) {
            assertTrue(rules.contains(always), fragment + ": missing " + always);
        }
    }

    @Test
    void theJobSetPresetInstallsItsQueuedKindAndGrantsExactlyTheJobVerbsOnJobSets() throws IOException {
        String rendered = render(Map.of("presets.jobSet", "true"));
        List<JsonNode> installed = queuedKinds(rendered);
        assertEquals(1, installed.size(), installed.toString());
        JsonNode jobSet = installed.get(0);
        assertEquals("kube-queue.io/v1alpha1", jobSet.path("apiVersion").asText());
        assertEquals("jobset.x-k8s.io", jobSet.path("spec").path("group").asText());
        assertEquals("jobsets", jobSet.path("spec").path("plural").asText());
        assertEquals(ApiServerRules.readAll(presetFile("jobSet")).get(0), jobSet, "the file, as written");
        List<PolicyRule> rules = controllerRules(rendered);
        assertEquals(JOB_VERBS, granted(rules, "jobset.x-k8s.io", "jobsets"));
        assertEquals(Set.of("get", "list", "watch", "patch"), JOB_VERBS, "what kube-queue needs on a job kind");
        assertEquals(Set.of(), granted(rules, "jobset.x-k8s.io", "jobsets/status"), "nothing on its status");
        for (PolicyRule always : ALWAYS) {
            assertTrue(rules.contains(always), "missing " + always);
        }
    }

    /**
     * Every preset: with its file in presets/, switching it on installs that one QueuedKind (a declaration kube-queue
     * accepts) and grants exactly the job verbs on its group/plural and nothing on the other presets' kinds; without
     * its file the render fails naming the file.
     */
    @Test
    void eachPresetInstallsItsFileAndGrantsItsKindOnly() throws IOException {
        Map<String, JsonNode> specs = new TreeMap<>();
        for (String name : presetSwitches().keySet()) {
            if (Files.exists(presetFile(name))) {
                specs.put(name, ApiServerRules.readAll(presetFile(name)).get(0).path("spec"));
            }
        }
        assertTrue(specs.containsKey("jobSet"), "presets/jobset.yaml is in the chart");
        for (String name : presetSwitches().keySet()) {
            if (!specs.containsKey(name)) {
                Exception missing = assertThrows(Exception.class, () -> render(Map.of("presets." + name, "true")));
                assertTrue(missing.getMessage().contains(presetFile(name).getFileName().toString()),
                        missing.getMessage());
                continue;
            }
            String rendered = render(Map.of("presets." + name, "true"));
            List<JsonNode> installed = queuedKinds(rendered);
            assertEquals(1, installed.size(), name);
            JsonNode spec = installed.get(0).path("spec");
            assertEquals(specs.get(name), spec, name);
            QueuedKindSpec read = CLIENT.getKubernetesSerialization().convertValue(spec, QueuedKindSpec.class);
            DeclaredJobKind.of(installed.get(0).path("metadata").path("name").asText(), read,
                    CLIENT.getKubernetesSerialization()); // throws, naming the field, if kube-queue would refuse it
            List<PolicyRule> rules = controllerRules(rendered);
            assertEquals(JOB_VERBS, granted(rules, spec.path("group").asText(), spec.path("plural").asText()), name);
            specs.forEach((other, otherSpec) -> {
                if (!other.equals(name) && !(otherSpec.path("group").equals(spec.path("group"))
                        && otherSpec.path("plural").equals(spec.path("plural")))) {
                    assertEquals(Set.of(), granted(rules, otherSpec.path("group").asText(),
                            otherSpec.path("plural").asText()), name + " on grants nothing on " + other + "'s kind");
                }
            });
        }
    }

    @Test
    void aDeclaredKindGetsExactlyTheJobVerbsAndABadOneIsRefused() {
        String rendered = render(Map.of("declaredKinds[0].group", "example.com", "declaredKinds[0].plural",
                "batchruns", "declaredKinds[1].group", "jobset.x-k8s.io", "declaredKinds[1].plural", "jobsets",
                "presets.jobSet", "true"));
        List<PolicyRule> rules = controllerRules(rendered);
        assertEquals(JOB_VERBS, granted(rules, "example.com", "batchruns"));
        assertEquals(JOB_VERBS, granted(rules, "jobset.x-k8s.io", "jobsets"));
        List<PolicyRule> declared = rules.stream().filter(r -> r.getApiGroups().contains("example.com")
                || r.getApiGroups().contains("jobset.x-k8s.io")).toList();
        assertEquals(List.of(
                new PolicyRuleBuilder().withApiGroups("example.com").withResources("batchruns")
                        .withVerbs("get", "list", "watch", "patch").build(),
                new PolicyRuleBuilder().withApiGroups("jobset.x-k8s.io").withResources("jobsets")
                        .withVerbs("get", "list", "watch", "patch").build()), declared,
                "one rule per kind, named by the preset and declaredKinds alike");
        assertEquals(1, queuedKinds(rendered).size(), "declaredKinds installs no QueuedKind: you apply your own");
        assertEquals(List.of(), queuedKinds(render(Map.of("declaredKinds[0].group", "example.com",
                "declaredKinds[0].plural", "batchruns"))));

        List<Map<String, String>> bad = new ArrayList<>(List.of(
                Map.of("declaredKinds[0].group", "example.com"),
                Map.of("declaredKinds[0].plural", "batchruns"),
                Map.of("declaredKinds[0].group", "*", "declaredKinds[0].plural", "batchruns"),
                Map.of("declaredKinds[0].group", "example.com", "declaredKinds[0].plural", "*"),
                Map.of("declaredKinds[0].group", "example.com", "declaredKinds[0].plural", "BatchRuns"),
                Map.of("declaredKinds[0].group", "example.com", "declaredKinds[0].plural", "batchruns",
                        "declaredKinds[0].verbs[0]", "delete")));
        for (Map<String, String> values : bad) {
            assertThrows(Exception.class, () -> render(values), values.toString());
        }
    }
}
