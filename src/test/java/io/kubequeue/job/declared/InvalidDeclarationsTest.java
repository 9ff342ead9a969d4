package io.kubequeue.job.declared;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kubequeue.testing.Declarations;
import io.kubequeue.input.InvalidJobException;
import io.kubequeue.job.kubeflow.TFJob;
import io.kubequeue.job.kubeflow.TFJobKind;
import io.kubequeue.testing.Parse;

/**
 * Declarations {@link DeclaredJobKind#of} refuses, each naming the field (what its Valid=False condition says), and
 * jobs of a valid declared kind refused at the object with an {@link InvalidJobException} naming the job's field.
 */
class InvalidDeclarationsTest {

    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    private static ObjectNode valid() {
        return SERIALIZATION.unmarshal(Declarations.BATCH, ObjectNode.class);
    }

    private static DeclaredJobKind of(ObjectNode spec) {
        return DeclaredJobKind.of("test", SERIALIZATION.convertValue(spec, QueuedKindSpec.class), SERIALIZATION);
    }

    private static ObjectNode set(ObjectNode spec, Consumer<ObjectNode> change) {
        change.accept(spec);
        return spec;
    }

    private static ObjectNode podSet(ObjectNode spec) {
        return (ObjectNode) spec.get("podSets").get(0);
    }

    private static void refused(String field, ObjectNode spec) {
        InvalidDeclarationException e = assertThrows(InvalidDeclarationException.class, () -> of(spec),
                "refused: " + field);
        assertEquals(field, e.field(), e.getMessage());
        assertTrue(e.getMessage().startsWith(field + ": "), e.getMessage());
    }

    @Test
    void theBaseDeclarationIsValid() {
        assertEquals("Batch", of(valid()).kind());
    }

    @Test
    void badPaths() {
        for (String path : List.of("spec..suspend", "spec.x[0]", "spec.suspend.", ".spec.suspend", "spec suspend",
                "spec.x[*", "spec.*.[*]", "spec." + "a.".repeat(40) + "b", "spec." + "a".repeat(600))) {
            refused("spec.hold.field", set(valid(), s -> s.with("hold").put("field", path)));
            refused("spec.podSets[0].template", set(valid(), s -> podSet(s).put("template", path)));
        }
        refused("spec.podSets[0].each", set(valid(), s -> podSet(s).put("each", "spec.groups[0]")));
        refused("spec.priorityClass", set(valid(), s -> s.put("priorityClass", "spec..p")));
        refused("spec.finished.field", set(valid(), s -> s.set("finished",
                SERIALIZATION.unmarshal("{\"field\": \"status.phase[1]\", \"values\": [\"Done\"]}", JsonNode.class))));
        refused("spec.finished.at", set(valid(), s -> s.with("finished").put("at", "status.ends[*]")));
        // a declaration reads a job's spec and status: a path from the job elsewhere would never match
        refused("spec.priorityClass", set(valid(), s -> s.put("priorityClass", "metadata.labels.priority")));
        refused("spec.started", set(valid(), s -> s.put("started", "startTime")));
        refused("spec.activeDeadlineSeconds", set(valid(), s -> s.put("activeDeadlineSeconds", "metadata.deadline")));
        refused("spec.finished.at", set(valid(), s -> s.with("finished").put("at", "endedAt")));
        refused("spec.podSets[0].each", set(valid(), s -> podSet(s).put("each", "metadata.groups[*]")));
        refused("spec.podSets[0].each", set(valid(), s -> podSet(s).put("each", "*.groups[*]")));
        refused("spec.podSets[0].template", set(valid(), s -> podSet(s).remove(List.of("each", "counts"))));
        refused("spec.podSets[0].counts[0].field", set(valid(), s -> podSet(s).put("template", "spec.template")
                .remove("each")));
        // relative to each item, a path may start anywhere
        assertEquals("Batch", of(set(valid(), s -> podSet(s).put("template", "pod.template"))).kind());
        assertEquals("Batch", of(set(valid(), s -> {
            podSet(s).remove("each");
            podSet(s).put("template", "spec.template");
            ((ObjectNode) podSet(s).get("counts").get(0)).put("field", "spec.replicas");
        })).kind());
        refused("spec.activeDeadlineSeconds", set(valid(), s -> s.put("activeDeadlineSeconds", "spec..deadline")));
    }

    /**
     * The run time a declared kind tells (issue 30's estimates): a deadline and an end read as the built-in kinds read
     * theirs ({@link io.kubequeue.job.RunTimeFields}), anything else absent, never an error.
     */
    @Test
    void runTimeFieldsReadAsTheBuiltInKindsReadThemAndBadValuesAreAbsent() {
        DeclaredJobKind kind = of(set(valid(), s -> {
            s.put("activeDeadlineSeconds", "spec.deadline");
            s.with("finished").put("at", "status.endedAt");
        }));
        java.util.function.Function<String, GenericKubernetesResource> job = fields -> SERIALIZATION.unmarshal(
                "{\"apiVersion\": \"example.com/v1alpha1\", \"kind\": \"Batch\", \"metadata\": {\"name\": \"b\","
                        + " \"namespace\": \"x\"}, " + fields + "}", GenericKubernetesResource.class);
        assertEquals(java.util.Optional.of(java.time.Duration.ofSeconds(600)),
                kind.activeDeadline(job.apply("\"spec\": {\"deadline\": 600}")));
        assertEquals(java.util.Optional.of(java.time.Instant.parse("2026-01-01T00:10:00Z")),
                kind.completionTime(job.apply("\"status\": {\"endedAt\": \"2026-01-01T00:10:00Z\"}")));
        for (String bad : List.of("\"600\"", "-1", "0", "1e999999999", "99999999999999999999999", "600.5", "[600]",
                "{}", "null", "true")) {
            assertEquals(java.util.Optional.empty(), kind.activeDeadline(job.apply("\"spec\": {\"deadline\": " + bad + "}")),
                    bad);
            assertEquals(java.util.Optional.empty(), kind.completionTime(job.apply("\"status\": {\"endedAt\": " + bad + "}")),
                    bad);
        }
        assertEquals(java.util.Optional.empty(), kind.completionTime(job.apply(
                "\"status\": {\"endedAt\": \"" + "9".repeat(100_000) + "\"}")), "a long string is not parsed");
        assertEquals(java.util.Optional.empty(), kind.activeDeadline(job.apply("\"spec\": {}")), "none said");
        // without finished.at, a kind finished by conditions ends at its finishing condition's time
        DeclaredJobKind byCondition = of(valid());
        assertEquals(java.util.Optional.empty(), byCondition.activeDeadline(job.apply("\"spec\": {\"deadline\": 600}")),
                "a deadline is read only where declared");
        assertEquals(java.util.Optional.of(java.time.Instant.parse("2026-01-01T00:20:00Z")), byCondition.completionTime(
                job.apply("\"status\": {\"conditions\": [{\"type\": \"Complete\", \"status\": \"True\","
                        + " \"lastTransitionTime\": \"2026-01-01T00:20:00Z\"}]}")));
        // a phase says not when
        DeclaredJobKind byPhase = of(set(valid(), s -> s.set("finished", SERIALIZATION.unmarshal(
                "{\"field\": \"status.phase\", \"values\": [\"Done\"]}", JsonNode.class))));
        assertEquals(java.util.Optional.empty(), byPhase.completionTime(job.apply("\"status\": {\"phase\": \"Done\","
                + " \"conditions\": [{\"type\": \"Complete\", \"status\": \"True\","
                + " \"lastTransitionTime\": \"2026-01-01T00:20:00Z\"}]}")));
    }

    @Test
    void theHoldField() {
        refused("spec.hold.field", set(valid(), s -> s.with("hold").put("field", "spec.jobs[*].suspend")));
        refused("spec.hold.field", set(valid(), s -> s.with("hold").put("field", "spec.*.suspend")));
        refused("spec.hold.field", set(valid(), s -> s.with("hold").put("field", "status.suspend")));
        refused("spec.hold.field", set(valid(), s -> s.with("hold").put("field", "metadata.suspend")));
        refused("spec.hold", set(valid(), s -> s.with("hold").put("annotation", true)));
        refused("spec.hold", set(valid(), s -> s.with("hold").remove("field")));
        refused("spec.hold", set(valid(), s -> s.with("hold").put("annotation", false).remove("field")));
        refused("spec.hold", set(valid(), s -> s.remove("hold")));
        assertEquals("Batch", of(set(valid(), s -> s.set("hold", JSON.objectNode().put("annotation", true)))).kind());
    }

    @Test
    void counts() {
        refused("spec.podSets[0].counts[0].default", set(valid(), s -> ((ObjectNode) podSet(s).get("counts").get(0))
                .put("default", -1)));
        refused("spec.podSets[0].counts[0].default", set(valid(), s -> ((ObjectNode) podSet(s).get("counts").get(0))
                .put("default", 1_000_001)));
        refused("spec.podSets[0].counts[0].field", set(valid(), s -> ((ObjectNode) podSet(s).get("counts").get(0))
                .put("field", "replicas.*")));
        refused("spec.podSets[0].counts[0].field", set(valid(), s -> ((ObjectNode) podSet(s).get("counts").get(0))
                .put("field", "pods[*].replicas")));
        refused("spec.podSets[0].counts[0].atMost", set(valid(), s -> ((ObjectNode) podSet(s).get("counts").get(0))
                .put("atMost", "*")));
        refused("spec.podSets[0].counts[0].field", set(valid(), s -> ((ObjectNode) podSet(s).get("counts").get(0))
                .remove("field")));
        refused("spec.podSets[0].counts", set(valid(), s -> {
            ArrayNode counts = podSet(s).withArray("counts");
            for (int i = 0; i < 4; i++) {
                counts.add(JSON.objectNode().put("field", "n" + i));
            }
        }));
    }

    /** {@code depth} levels of pod sets, each the only one of its level. */
    private static ObjectNode nested(int depth) {
        ObjectNode spec = valid();
        ObjectNode set = podSet(spec);
        for (int level = 2; level <= depth; level++) {
            ObjectNode inner = JSON.objectNode().put("each", "items[*]").put("template", "template");
            set.set("podSets", JSON.arrayNode().add(inner));
            set = inner;
        }
        return spec;
    }

    @Test
    void podSetsNestFourLevelsAtMost() {
        assertEquals("Batch", of(nested(4)).kind());
        InvalidDeclarationException e = assertThrows(InvalidDeclarationException.class, () -> of(nested(5)));
        assertEquals("spec.podSets[0].podSets[0].podSets[0].podSets[0].podSets", e.field(), e.getMessage());
        assertTrue(e.getMessage().contains("at most 4 levels"), e.getMessage());
    }

    /** Built as nodes (a parser refuses such a document itself): refused by its depth, fast, before it is read. */
    @Test
    void podSetsNestedTenThousandLevelsAreRefusedFast() {
        ObjectNode spec = valid();
        ObjectNode set = podSet(spec);
        for (int level = 0; level < 10_000; level++) {
            ObjectNode inner = JSON.objectNode();
            set.set("podSets", JSON.arrayNode().add(inner));
            set = inner;
        }
        QueuedKindSpec declared = SERIALIZATION.convertValue(valid(), QueuedKindSpec.class);
        declared.podSets.get(0).podSets = spec.get("podSets").get(0).get("podSets");
        InvalidDeclarationException e = assertTimeoutPreemptively(Duration.ofSeconds(2),
                () -> assertThrows(InvalidDeclarationException.class,
                        () -> DeclaredJobKind.of("deep", declared, SERIALIZATION)));
        assertEquals("spec.podSets[0].podSets", e.field(), e.getMessage());
    }

    /** Sixteen a level, four levels: 16⁴ pod sets, each walked for every job read; 64 in all at most. */
    @Test
    void sixtyFourPodSetsInAllAtMostAndNamesOfBoundedLength() {
        ObjectNode spec = valid();
        ArrayNode top = spec.withArray("podSets");
        top.removeAll();
        for (int i = 0; i < 5; i++) {
            ObjectNode set = top.addObject().put("each", "spec.groups[*]");
            ArrayNode nested = set.withArray("podSets");
            for (int j = 0; j < 12; j++) {
                nested.addObject().put("template", "template");
            }
        }
        refused("spec.podSets", spec); // 5 + 60
        ((ArrayNode) top.get(0).get("podSets")).remove(0);
        assertEquals("Batch", of(spec).kind(), "5 + 59 = 64");
        refused("spec.podSets[0].name", set(valid(), s -> podSet(s).put("name", "n".repeat(254))));
    }

    @Test
    void sixteenPodSetsOnALevelAtMost() {
        ObjectNode sixteen = valid();
        ArrayNode sets = sixteen.withArray("podSets");
        for (int i = 1; i < 16; i++) {
            sets.add(sets.get(0).deepCopy());
        }
        assertEquals("Batch", of(sixteen).kind());
        sets.add(sets.get(0).deepCopy());
        refused("spec.podSets", sixteen);
        refused("spec.podSets", set(valid(), s -> s.set("podSets", JSON.arrayNode())));
        refused("spec.podSets[0]", set(valid(), s -> podSet(s).put("resources", "resources")));
        refused("spec.podSets[0]", set(valid(), s -> podSet(s).remove("template")));
    }

    @Test
    void badNames() {
        for (String kind : List.of("", "batch", "Batch-Job", "Batch.x", "B" + "a".repeat(63), "Bätch")) {
            refused("spec.kind", set(valid(), s -> s.put("kind", kind)));
        }
        for (String group : List.of("", "Example.com", "example..com", "-example.com", "example.com/", "a".repeat(254))) {
            refused("spec.group", set(valid(), s -> s.put("group", group)));
        }
        for (String version : List.of("", "1", "v0", "V1", "v1beta", "v1alpha0", "v1.1", "v1gamma1")) {
            refused("spec.version", set(valid(), s -> s.put("version", version)));
        }
        for (String plural : List.of("", "Batches", "batches.example.com", "batch_es", "-batches")) {
            refused("spec.plural", set(valid(), s -> s.put("plural", plural)));
        }
        refused("spec.kind", set(valid(), s -> s.remove("kind")));
        refused("spec.pods.labelKey", set(valid(), s -> s.with("pods").put("labelKey", "a/b/c")));
        // what the API server refuses in a pod selector: the pod watch would never start
        for (String key : List.of("", "example.com/" + "b".repeat(64), "c".repeat(64), "a".repeat(254) + "/batch",
                "Example.com/batch", "example.com/-batch")) {
            refused("spec.pods.labelKey", set(valid(), s -> s.with("pods").put("labelKey", key)));
        }
        for (String key : List.of("example.com/" + "b".repeat(63), "c".repeat(63),
                "a".repeat(63) + "." + "a".repeat(63) + "." + "a".repeat(63) + "." + "a".repeat(61) + "/batch")) {
            assertEquals(key, of(set(valid(), s -> s.with("pods").put("labelKey", key))).podLabelKey(), key);
        }
        refused("spec.pods", set(valid(), s -> s.remove("pods")));
    }

    @Test
    void finishedOneWayOnly() {
        refused("spec.finished", set(valid(), s -> s.with("finished").put("field", "status.phase")
                .set("values", JSON.arrayNode().add("Done"))));
        refused("spec.finished", set(valid(), s -> s.set("finished", JSON.objectNode())));
        refused("spec.finished.values", set(valid(), s -> s.set("finished", JSON.objectNode()
                .put("field", "status.phase"))));
        refused("spec.finished.conditions", set(valid(), s -> {
            ArrayNode many = s.with("finished").withArray("conditions");
            for (int i = 0; i < 16; i++) {
                many.add("C" + i);
            }
        }));
        refused("spec.finished.conditions", set(valid(), s -> s.with("finished").withArray("conditions").add("")));
    }

    @Test
    void labelValueIsNameOrUid() {
        refused("spec.pods.labelValue", set(valid(), s -> s.with("pods").put("labelValue", "Foo")));
        refused("spec.pods.labelValue", set(valid(), s -> s.with("pods").put("labelValue", "name")));
        // a uid names no job by itself: the pod's controlling owner, the job, does
        refused("spec.pods.labelValue", set(valid(), s -> s.with("pods").put("labelValue", "Uid")));
        assertEquals("u", of(set(valid(), s -> s.with("pods").put("labelValue", "Uid").put("ownedByJob", true)))
                .podLabelValue("n", "u"));
    }

    // ---- jobs refused at the object ------------------------------------------------------------------------------

    private static GenericKubernetesResource job(String group) {
        return SERIALIZATION.unmarshal("""
                {"apiVersion": "example.com/v1alpha1", "kind": "Batch", "metadata": {"name": "b", "namespace": "x"},
                 "spec": {"groups": [%s]}}
                """.formatted(group), GenericKubernetesResource.class);
    }

    private static final String TEMPLATE = "{\"spec\": {\"containers\": [{\"name\": \"c\","
            + " \"resources\": {\"requests\": {\"cpu\": \"1\"}}}]}}";

    private static InvalidJobException refusedJob(String field, GenericKubernetesResource job) {
        DeclaredJobKind kind = of(valid());
        InvalidJobException e = assertThrows(InvalidJobException.class, () -> kind.request(job), field);
        assertTrue(e.getMessage().startsWith(field + ": "), e.getMessage());
        return e;
    }

    @Test
    void countsThatAreNotWholeNumbersInRange() {
        assertEquals(3000L, of(valid()).request(job("{\"replicas\": 3, \"template\": " + TEMPLATE + "}")).get("cpu"));
        for (String replicas : List.of("\"3\"", "2.5", "3.0", "-1", "1000001", "1e999999999", "true", "[3]", "{}",
                "99999999999999999999999")) {
            InvalidJobException e = refusedJob("spec.groups[0].replicas",
                    job("{\"replicas\": " + replicas + ", \"template\": " + TEMPLATE + "}"));
            assertTrue(e.getMessage().length() < 1000, e.getMessage());
        }
        // 1,000 × 1,001 pods in one pod set: each count is in range, their product is not
        GenericKubernetesResource product = SERIALIZATION.unmarshal("""
                {"apiVersion": "example.com/v1alpha1", "kind": "Batch", "metadata": {"name": "b", "namespace": "x"},
                 "spec": {"groups": [{"replicas": 1000, "parallelism": 1001, "template": %s}]}}
                """.formatted(TEMPLATE), GenericKubernetesResource.class);
        ObjectNode twoCounts = set(valid(), s -> podSet(s).withArray("counts")
                .add(JSON.objectNode().put("field", "parallelism")));
        assertThrows(InvalidJobException.class, () -> of(twoCounts).request(product));
    }

    @Test
    void templatesThatAreNotPodTemplates() {
        refusedJob("spec.groups[0].template", job("{\"template\": \"a pod\"}"));
        refusedJob("spec.groups[0].template", job("{\"template\": [1, 2]}"));
        refusedJob("spec.groups[0].template", job("{\"template\": {\"spec\": {\"containers\": \"c\"}}}"));
        refusedJob("spec.groups[0].template", job("{\"replicas\": 2}"));
        // any object at a template's path, without a container, was charged nothing: a free pass
        refusedJob("spec.groups[0].template.spec.containers", job("{\"template\": {\"metadata\": {\"a\": 1}}}"));
        refusedJob("spec.groups[0].template.spec.containers", job("{\"template\": {\"spec\": {}}}"));
        refusedJob("spec.groups[0].template.spec.containers", job("{\"template\": {\"spec\": {\"containers\": []}}}"));
        refusedJob("spec.groups[0].template.spec.containers", job("{\"template\": {}}"));
    }

    /** {@code cpu: 1e999999999} in a template: what the built-in kinds do ({@link TFJobKind}), a declared kind does. */
    @Test
    void anAbsurdQuantityIsRefusedAsTheBuiltInKindsRefuseIt() {
        for (String cpu : List.of("1e999999999", "\"1e999999999\"", "\"-1\"", "\"lots\"")) {
            String container = "{\"name\": \"c\", \"resources\": {\"requests\": {\"cpu\": " + cpu + "}}}";
            InvalidJobException declared = refusedJob("spec.groups[0].template.spec.containers[0].resources.requests.cpu",
                    job("{\"template\": {\"spec\": {\"containers\": [" + container + "]}}}"));

            TFJob tf = SERIALIZATION.unmarshal("""
                    {"apiVersion": "kubeflow.org/v1", "kind": "TFJob", "metadata": {"name": "t", "namespace": "x"},
                     "spec": {"tfReplicaSpecs": {"Worker": {"template": {"spec": {"containers": [%s]}}}}}}
                    """.formatted(container), TFJob.class);
            InvalidJobException builtIn = assertThrows(InvalidJobException.class,
                    () -> new TFJobKind(Parse.client()).request(tf));
            assertTrue(builtIn.getMessage().startsWith(
                    "spec.tfReplicaSpecs.Worker.template.spec.containers[0].resources.requests.cpu: "),
                    builtIn.getMessage());
            assertEquals(after(builtIn, "requests.cpu: "), after(declared, "requests.cpu: "), cpu);
        }
    }

    private static String after(Exception e, String marker) {
        return e.getMessage().substring(e.getMessage().indexOf(marker) + marker.length());
    }

    @Test
    void jobsWithManyItemsAreRefusedNotRead() {
        List<String> groups = new ArrayList<>();
        for (int i = 0; i < 1_001; i++) {
            groups.add("{\"replicas\": 0}");
        }
        assertThrows(InvalidJobException.class, () -> of(valid()).request(job(String.join(",", groups))));
    }
}
