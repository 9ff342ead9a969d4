package io.kubequeue.quota.resourcequota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.kubequeue.quota.AdmissionTimeoutAnnotations;
import io.kubequeue.testing.Parse;
import io.kubequeue.testing.RecordingEvents;
import io.kubequeue.scheduler.model.QuotaNode;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.Resources;

/** The ResourceQuota plugin: quota keys, rounding, and a namespace without quota (moved out of the former QuotaSourcesTest). */
class ResourceQuotaSourceTest {

    private static ResourceQuota resourceQuota(String spec, String status) {
        return (ResourceQuota) Parse.yaml("""
                apiVersion: v1
                kind: ResourceQuota
                metadata: {name: q, namespace: team}
                spec:
                """ + spec.indent(2) + "status:\n" + status.indent(2)).get(0);
    }

    @Test
    void aResourceQuotaHardLimitIsRoundedDownItsUsedAmountUp() {
        // the API server keeps milli-scale amounts, so 1.5 bytes reaches us as such; Kubernetes compares exactly
        ResourceQuota quota = resourceQuota("hard: {requests.memory: 1500m, limits.memory: 2500m, cpu: \"3\"}",
                "used: {requests.memory: 500m, limits.memory: 1500m}");
        List<Resources> reported = new ArrayList<>();
        ResourceQuotaSource source = new ResourceQuotaSource(null, null, Duration.ZERO, (ns, seen) -> Resources.NONE,
                new ResourceQuotaSource.OutsideUsage() {
                    @Override
                    public long ticket(String namespace) {
                        return 0;
                    }

                    @Override
                    public void set(String namespace, Resources used, long ticket) {
                        reported.add(used);
                    }
                }) {
            @Override
            protected List<ResourceQuota> objects() {
                return List.of(quota);
            }
        };
        try {
            QuotaNode group = source.build(List.of(quota), null).groupFor("team", null).orElseThrow();
            assertEquals(Resources.of("memory", 1L, "limits.memory", 2L, "cpu", 3000L), group.max());
            source.recompute("team");
            // status.used stays rounded up (0.5 → 1, 1.5 → 2): usage is never under-counted
            assertEquals(List.of(Resources.of("cpu", 0L, "memory", 1L, "limits.memory", 2L)), reported);
        } finally {
            source.stop();
        }
    }

    @Test
    void resourceQuotaKeysMapToTheResourcesTheyLimit() {
        assertEquals("cpu", ResourceQuotaSource.requestResource("cpu"));
        assertEquals("cpu", ResourceQuotaSource.requestResource("requests.cpu"));
        assertEquals("memory", ResourceQuotaSource.requestResource("requests.memory"));
        assertEquals("nvidia.com/gpu", ResourceQuotaSource.requestResource("requests.nvidia.com/gpu"));
        assertEquals("limits.cpu", ResourceQuotaSource.requestResource("limits.cpu"));
        assertEquals("limits.memory", ResourceQuotaSource.requestResource("limits.memory"));
        assertNull(ResourceQuotaSource.requestResource("limits.nvidia.com/gpu"), "Kubernetes allows no such quota key");
        assertNull(ResourceQuotaSource.requestResource("count/jobs.batch"));
        assertNull(ResourceQuotaSource.requestResource("pods"));
    }

    @Test
    void ephemeralStorageQuotaKeysAreReadLikeCpuAndMemory() {
        // Kubernetes "Resource Quotas": ephemeral-storage is the same as requests.ephemeral-storage
        assertEquals("ephemeral-storage", ResourceQuotaSource.requestResource("ephemeral-storage"));
        assertEquals("ephemeral-storage", ResourceQuotaSource.requestResource("requests.ephemeral-storage"));
        assertEquals("limits.ephemeral-storage", ResourceQuotaSource.requestResource("limits.ephemeral-storage"));
        ResourceQuota quota = resourceQuota(
                "hard: {ephemeral-storage: 10Gi, requests.ephemeral-storage: 12Gi, limits.ephemeral-storage: 20Gi}", "{}");
        ResourceQuotaSource source = new ResourceQuotaSource(null, null, Duration.ZERO, (ns, seen) -> Resources.NONE, null);
        try {
            // both request keys must hold: the smaller wins
            assertEquals(Resources.of("ephemeral-storage", 10L << 30, "limits.ephemeral-storage", 20L << 30),
                    source.build(List.of(quota), null).groupFor("team", null).orElseThrow().max());
        } finally {
            source.stop();
        }
    }

    @Test
    void aNamespaceWithoutResourceQuotaIsAnUnlimitedGroup() {
        QuotaTree tree = QuotaTree.perNamespace(List.of(
                new QuotaNode("limited", null, List.of("limited"), null, Resources.of("cpu", 4000L))));
        assertEquals(Resources.of("cpu", 4000L), tree.groupFor("limited", null).orElseThrow().max());
        QuotaNode open = tree.groupFor("other", null).orElseThrow();
        assertEquals("other", open.name());
        assertTrue(open.max().isEmpty() && !open.max().has("cpu"));
    }

    /** A counted quota of that name in that namespace, with that admission-timeout annotation (null: none). */
    private static ResourceQuota annotated(String namespace, String name, String timeout) {
        ResourceQuota quota = resourceQuota("hard: {cpu: \"4\"}", "hard: {cpu: \"4\"}");
        quota.getMetadata().setNamespace(namespace);
        quota.getMetadata().setName(name);
        quota.getMetadata().setUid(namespace + "-" + name);
        if (timeout != null) {
            quota.getMetadata().setAnnotations(Map.of(AdmissionTimeoutAnnotations.QUOTA, timeout));
        }
        return quota;
    }

    /** A source for {@code build} alone: no pods, no outside usage. */
    private static ResourceQuotaSource groupsOnly(RecordingEvents events) {
        return new ResourceQuotaSource(null, events, Duration.ZERO, (ns, seen) -> Resources.NONE, null);
    }

    @Test
    void aQuotasAnnotationSetsItsNamespacesAdmissionTimeoutTheShortestOfSeveralWins() {
        RecordingEvents events = new RecordingEvents();
        ResourceQuotaSource source = groupsOnly(events);
        try {
            QuotaTree groups = source.build(List.of(annotated("team", "big", "1h"), annotated("team", "small", "15m"),
                    annotated("crew", "small", "15m"), annotated("crew", "big", "1h"), annotated("batch", "off", "0"), annotated("mixed", "off", "0"), annotated("mixed", "on", "20m"),
                    annotated("plain", "q", null)), null);
            Map<String, Duration> byGroup = new java.util.TreeMap<>();
            groups.nodes().forEach(n -> byGroup.put(n.name(), n.admissionTimeout()));
            Map<String, Duration> expected = new java.util.TreeMap<>(Map.of("team", Duration.ofMinutes(15),
                    "crew", Duration.ofMinutes(15), "batch", Duration.ZERO, "mixed", Duration.ofMinutes(20)));
            expected.put("plain", null); // the global kube-queue.admission-timeout
            assertEquals(expected, byGroup);
            assertEquals(List.of(), events.events());
        } finally {
            source.stop();
        }
    }

    /** Issue 25, sequence 4: 400000000000d reads as a Duration, but puts every deadline past the end of time. */
    @Test
    void aTimeoutPastItsRangeIsLeftOutWithOneWarningNamingTheRange() {
        RecordingEvents events = new RecordingEvents();
        ResourceQuotaSource source = groupsOnly(events);
        try {
            QuotaTree groups = source.build(List.of(annotated("team", "absurd", "400000000000d"),
                    annotated("other", "absurd", "400000000000d"), annotated("team", "good", "30m")), null);
            assertEquals(Duration.ofMinutes(30), groups.node("team").orElseThrow().admissionTimeout());
            assertNull(groups.node("other").orElseThrow().admissionTimeout(), "the global timeout applies");
            List<RecordingEvents.Event> warnings = events.withReason("InvalidAdmissionTimeout");
            assertEquals(2, warnings.size(), warnings.toString());
            assertTrue(warnings.get(0).message().startsWith("kube-queue/admission-timeout: invalid duration"
                    + " '400000000000d': out of range; valid: 0 (off), or from 1s to 365d; ignored"),
                    warnings.get(0).message());
        } finally {
            source.stop();
        }
    }

    @Test
    void aValueThatDoesNotReadIsLeftOutWithOneWarningOnItsQuota() {
        RecordingEvents events = new RecordingEvents();
        ResourceQuotaSource source = groupsOnly(events);
        try {
            List<ResourceQuota> quotas = List.of(annotated("team", "bad", "soon"), annotated("team", "good", "30m"),
                    annotated("other", "negative", "-5m"));
            QuotaTree groups = source.build(quotas, null);
            assertEquals(Duration.ofMinutes(30), groups.node("team").orElseThrow().admissionTimeout());
            assertNull(groups.node("other").orElseThrow().admissionTimeout());
            assertEquals(Resources.of("cpu", 4000L), groups.node("other").orElseThrow().max(), "the quota applies");
            source.build(quotas, groups); // read again on any quota's change
            List<RecordingEvents.Event> warnings = events.withReason("InvalidAdmissionTimeout");
            assertEquals(List.of("bad", "negative"), warnings.stream().map(RecordingEvents.Event::name).toList());
            assertTrue(warnings.get(0).message().startsWith("kube-queue/admission-timeout: invalid duration 'soon'; valid"
                    + " forms: 0 (off)"), warnings.get(0).message());
            assertTrue(warnings.get(1).message().contains("invalid duration '-5m': must not be negative"),
                    warnings.get(1).message());
        } finally {
            source.stop();
        }
    }

    /**
     * Issue 25, sequence 2: a spec.hard (or status) of 1e999999999 threw an ArithmeticException out of the quota
     * source; now the quota gets its InvalidQuota Warning, holds its namespace to zero, and the group is built.
     */
    @Test
    void aHugeHardLimitIsAnInvalidQuotaThatHoldsItsNamespace() {
        RecordingEvents events = new RecordingEvents();
        ResourceQuotaSource source = groupsOnly(events);
        ResourceQuota quota = resourceQuota("hard: {cpu: \"1e999999999\", memory: 1Gi}",
                "hard: {cpu: \"1e999999999\", memory: 1Gi}\nused: {cpu: \"1e30000000\"}");
        assertEquals(Resources.of("cpu", 0L, "memory", 1L << 30), source.hardLimits(quota));
        QuotaTree groups = source.build(List.of(quota), null);
        assertEquals(Resources.of("cpu", 0L, "memory", 1L << 30), groups.node("team").orElseThrow().max());
        List<RecordingEvents.Event> warnings = events.withReason("InvalidQuota");
        assertTrue(!warnings.isEmpty() && warnings.get(0).message().startsWith("spec.hard.cpu:")
                && warnings.get(0).message().contains("exponent"), warnings.toString());
    }
}
