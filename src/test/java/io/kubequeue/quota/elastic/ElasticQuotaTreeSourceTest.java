package io.kubequeue.quota.elastic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

import io.kubequeue.quota.AdmissionTimeoutAnnotations;
import io.kubequeue.testing.Parse;
import io.kubequeue.testing.RecordingEvents;
import io.kubequeue.scheduler.model.QuotaNode;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.Resources;

/** The ElasticQuotaTree plugin's reading of a tree into quota groups (moved out of the former QuotaSourcesTest). */
class ElasticQuotaTreeSourceTest {

    private static ElasticQuotaTree tree(String root) {
        String yaml = """
                apiVersion: scheduling.sigs.k8s.io/v1beta1
                kind: ElasticQuotaTree
                metadata: {name: t, namespace: kube-system}
                spec:
                  root:
                """ + root.indent(4);
        return (ElasticQuotaTree) Parse.yaml(yaml)
                .get(0);
    }

    @Test
    void theSeedsTreeGivesTwoGroupsWithExactLimits() {
        ElasticQuotaTree seed = (ElasticQuotaTree) Parse.resource("/seed/elasticquotatree.yaml").get(0);
        QuotaTree tree = ElasticQuotaTreeSource.toQuotaTree(seed);
        QuotaNode leaf = tree.groupFor("default", null).orElseThrow();
        assertEquals("root.defaultQuotaGroup", leaf.name());
        assertEquals("root", leaf.parentName());
        assertEquals(Resources.of("cpu", 4000L, "memory", 4L << 30, "nvidia.com/gpu", 64L, "aliyun.com/gpu-mem", 16L),
                leaf.max());
        assertEquals(List.of("root.defaultQuotaGroup", "root"),
                tree.pathToRoot(leaf.name()).stream().map(QuotaNode::name).toList());
    }

    @Test
    void minAboveMaxIsRefusedNamingTheNode() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ElasticQuotaTreeSource.toQuotaTree(
                tree("name: root\nmin: {cpu: \"8\"}\nmax: {cpu: \"4\"}")));
        assertTrue(e.getMessage().contains("spec.root (root): min cpu 8 is above max 4"), e.getMessage());
    }

    @Test
    void aNamespaceInTwoNodesIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ElasticQuotaTreeSource.toQuotaTree(
                tree("""
                        name: root
                        children:
                          - {name: a, namespaces: [team]}
                          - {name: b, namespaces: [team]}
                        """)));
        assertTrue(e.getMessage().contains("namespace team is listed by both a and b"), e.getMessage());
    }

    @Test
    void aBadQuantityIsRefusedNamingTheNode() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ElasticQuotaTreeSource.toQuotaTree(
                tree("name: root\nchildren: [{name: a, max: {cpu: lots}}]")));
        assertTrue(e.getMessage().startsWith("spec.root.children[0] (a):"), e.getMessage());
    }

    @Test
    void aTreeLimitIsRoundedDownNeverAdmittingMoreThanItSays() {
        QuotaTree tree = ElasticQuotaTreeSource.toQuotaTree(tree("""
                name: root
                namespaces: [team]
                min: {cpu: "0.0015"}
                max: {cpu: "0.0015", memory: 1500m}
                """));
        QuotaNode root = tree.groupFor("team", null).orElseThrow();
        // 1.5 millicores and 1.5 bytes: a request rounded up to 2 must not fit a limit rounded up to 2
        assertEquals(Resources.of("cpu", 1L, "memory", 1L), root.max());
        assertEquals(Resources.of("cpu", 1L), root.min());
    }

    /** A tree of root, root.a and root.b (root.b's child root.b.c), with that admission-timeouts annotation. */
    private static ElasticQuotaTree annotated(String timeouts) {
        ElasticQuotaTree tree = tree("""
                name: root
                children:
                  - {name: root.a, namespaces: [team-a], max: {cpu: "4"}}
                  - name: root.b
                    children: [{name: root.b.c, namespaces: [team-c]}]
                """);
        tree.getMetadata().setUid("tree-uid");
        tree.getMetadata().setAnnotations(Map.of(AdmissionTimeoutAnnotations.TREE, timeouts));
        return tree;
    }

    private static Map<String, Duration> timeouts(QuotaTree tree) {
        Map<String, Duration> byNode = new TreeMap<>();
        tree.nodes().forEach(n -> byNode.put(n.name(), n.admissionTimeout()));
        return byNode;
    }

    private final RecordingEvents events = new RecordingEvents();
    private final ElasticQuotaTreeSource source = new ElasticQuotaTreeSource(Parse.client(), "kube-system", events,
            Duration.ZERO);

    @Test
    void theTreesAnnotationGivesGroupsTheirOwnAdmissionTimeoutInYamlOrJson() {
        Map<String, Duration> expected = new TreeMap<>();
        expected.put("root", Duration.ZERO);
        expected.put("root.a", Duration.ofMinutes(15));
        expected.put("root.b", Duration.ofMinutes(90));
        expected.put("root.b.c", null); // inherits: the core resolves it (root.b's, then the global one)
        assertEquals(expected, timeouts(source.build(List.of(annotated("""
                root.a: 15m
                root.b: 1h30m
                root: "0"
                """)), null)));
        assertEquals(expected, timeouts(source.build(List.of(annotated(
                "{\"root.a\": \"PT15M\", \"root.b\": 5400, \"root\": 0}")), null)), "JSON; numbers are seconds");
        assertEquals(List.of(), events.events());
    }

    /** Issue 29, item 3: what the status writer is told of each tree of the namespace. */
    @Test
    void eachTreeIsReadOnceOldestFirstAndARefusedEditKeepsTheGenerationInForce() {
        ElasticQuotaTree first = tree("name: root\nmax: {cpu: \"4\"}");
        first.getMetadata().setCreationTimestamp("2026-01-01T00:00:00Z");
        first.getMetadata().setUid("uid-first");
        first.getMetadata().setGeneration(1L);
        ElasticQuotaTree second = tree("name: root\nmax: {cpu: \"8\"}");
        second.getMetadata().setName("second");
        second.getMetadata().setCreationTimestamp("2026-02-01T00:00:00Z");
        second.getMetadata().setUid("uid-second");
        second.getMetadata().setGeneration(5L);

        QuotaTree groups = source.build(List.of(second, first), null);
        assertEquals(List.of(
                        new ElasticQuotaTreeSource.TreeReading(new ElasticQuotaTreeSource.TreeRef("kube-system", "t"), 1L,
                                true, null, true, 1L, null, List.of()),
                        new ElasticQuotaTreeSource.TreeReading(new ElasticQuotaTreeSource.TreeRef("kube-system", "second"),
                                5L, null, null, false, null, "t", List.of())),
                source.readings());

        ElasticQuotaTree edited = tree("name: root\nmin: {cpu: \"9\"}\nmax: {cpu: \"4\"}");
        edited.setMetadata(first.getMetadata());
        edited.getMetadata().setGeneration(2L);
        assertEquals(groups, source.build(List.of(edited, second), groups), "the valid generation stays in force");
        ElasticQuotaTreeSource.TreeReading reading = source.readings().get(0);
        assertEquals(false, reading.accepted());
        assertEquals(2L, reading.observedGeneration());
        assertEquals(1L, reading.generationInForce());
        assertTrue(reading.inForce());
        assertTrue(reading.rejection().contains("min cpu 9 is above max 4"), reading.rejection());
    }

    /** Issue 25, sequence 4: 400000000000d reads as a Duration, but puts every deadline past the end of time. */
    @Test
    void anEntryPastItsRangeIsLeftOutWithOneWarningNamingTheRange() {
        QuotaTree groups = source.build(List.of(annotated("""
                root.a: 400000000000d
                root.b: 20m
                """)), null);
        assertNull(groups.node("root.a").orElseThrow().admissionTimeout(), "inherits, as if the entry were not there");
        assertEquals(Duration.ofMinutes(20), groups.node("root.b").orElseThrow().admissionTimeout());
        List<RecordingEvents.Event> warnings = events.withReason("InvalidAdmissionTimeout");
        assertEquals(1, warnings.size(), warnings.toString());
        assertTrue(warnings.get(0).message().contains("'root.a: 400000000000d': invalid duration '400000000000d': out"
                + " of range; valid: 0 (off), or from 1s to 365d"), warnings.get(0).message());
    }

    @Test
    void anEntryThatDoesNotReadIsLeftOutWithOneWarningAndTheTreeAppliesAsUsual() {
        ElasticQuotaTree tree = annotated("""
                root.a: 15m
                root.x: 10m
                root.b: soon
                root.b.c: -5m
                """);
        QuotaTree groups = source.build(List.of(tree), null);
        assertEquals(Duration.ofMinutes(15), groups.node("root.a").orElseThrow().admissionTimeout());
        assertNull(groups.node("root.b").orElseThrow().admissionTimeout());
        assertNull(groups.node("root.b.c").orElseThrow().admissionTimeout());
        assertEquals(Resources.of("cpu", 4000L), groups.node("root.a").orElseThrow().max(), "the tree applies");
        List<RecordingEvents.Event> warnings = events.withReason("InvalidAdmissionTimeout");
        assertEquals(1, warnings.size(), warnings.toString());
        String message = warnings.get(0).message();
        for (String named : List.of("'root.x: 10m': no quota group root.x", "'root.b: soon': invalid duration 'soon'",
                "'root.b.c: -5m': invalid duration '-5m': must not be negative", "valid forms: 0 (off)")) {
            assertTrue(message.startsWith("kube-queue/admission-timeouts: ") && message.contains(named), message);
        }
        assertEquals("Warning", warnings.get(0).type());
        assertEquals("t", warnings.get(0).name(), "on the tree");

        source.build(List.of(tree), groups); // the tree is read again on every change, e.g. its status
        assertEquals(1, events.events().size(), "one Warning while the annotation stays as it is");
        source.build(List.of(annotated("root.a: 15m")), groups);
        source.build(List.of(tree), groups);
        assertEquals(2, events.events().size(), "broken again after a fix: said again");
    }

    @Test
    void anAnnotationThatIsNotAMapIsIgnoredWithAWarning() {
        for (String notAMap : List.of("15m", "[root.a, 15m]", "{root.a: [1, 2]", "")) {
            QuotaTree groups = source.build(List.of(annotated(notAMap)), null);
            assertTrue(groups.nodes().stream().allMatch(n -> n.admissionTimeout() == null), notAMap);
            assertEquals(4, groups.nodes().size(), "the tree applies");
        }
        assertEquals(4, events.withReason("InvalidAdmissionTimeout").size(), events.events().toString());
        assertTrue(events.events().get(0).message().contains("'15m' is not a map from quota group to duration"),
                events.events().get(0).message());
    }

    /** Issue 25, sequence 2: a min or max of 1e999999999 threw an ArithmeticException past InvalidQuotaTree. */
    @Test
    void aHugeMinOrMaxIsABadQuantityNamingTheNode() {
        for (String node : new String[] {"{name: a, max: {cpu: \"1e999999999\"}}",
                "{name: a, min: {cpu: \"1e999999999\"}, max: {cpu: \"1e999999999\"}}",
                "{name: a, min: {cpu: \"1e30000000\"}, max: {cpu: \"4\"}}"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> ElasticQuotaTreeSource.toQuotaTree(tree("name: root\nchildren: [" + node + "]")));
            assertTrue(e.getMessage().startsWith("spec.root.children[0] (a):") && e.getMessage().contains("exponent"),
                    e.getMessage());
        }
    }

    /**
     * A tree of 2,000 levels (the CRD's schema stops at six and keeps deeper children as written) overflowed the
     * stack of the thread reading it (Jackson reads nodes recursively); now it is read as a tree too deep, an
     * invalid tree like any other. A tree of 64 levels still reads.
     */
    @Test
    void aTreeNestedThousandsOfLevelsIsAnInvalidTreeNotAStackOverflow() {
        var serialization = new io.fabric8.kubernetes.client.utils.KubernetesSerialization(
                io.kubequeue.input.JsonBounds.apply(new com.fasterxml.jackson.databind.ObjectMapper()), false);
        java.util.function.IntFunction<ElasticQuotaTree> levels = n -> serialization.unmarshal(
                "{\"apiVersion\":\"scheduling.sigs.k8s.io/v1beta1\",\"kind\":\"ElasticQuotaTree\","
                        + "\"metadata\":{\"name\":\"t\"},\"spec\":{\"root\":"
                        + java.util.stream.IntStream.range(1, n).mapToObj(i -> "{\"name\":\"n" + i + "\",\"children\":[")
                        .collect(java.util.stream.Collectors.joining()) + "{\"name\":\"leaf\"}" + "]}".repeat(n - 1)
                        + "}}", ElasticQuotaTree.class);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ElasticQuotaTreeSource.toQuotaTree(levels.apply(2_000)));
        assertTrue(e.getMessage().contains("levels deep"), e.getMessage());
        assertEquals(64, ElasticQuotaTreeSource.toQuotaTree(levels.apply(64)).nodes().size());
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> ElasticQuotaTreeSource.toQuotaTree(levels.apply(65))).getMessage().contains("64"));
    }
}
