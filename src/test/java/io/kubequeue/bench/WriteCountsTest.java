package io.kubequeue.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Who a write is from, and the counts by client and kind. */
class WriteCountsTest {

    @Test
    void aHarnessClientSaysWhoItIsInItsUserAgentAndKubeQueueByItsToken() {
        assertEquals("reference", WriteCounts.clientOf("kube-queue-bench/reference", null));
        assertEquals("harness", WriteCounts.clientOf("kube-queue-bench/harness", "Bearer bench"));
        assertEquals("kube-queue", WriteCounts.clientOf("fabric8-kubernetes-client/7.5.2", "Bearer bench"));
        assertEquals("unknown", WriteCounts.clientOf("fabric8-kubernetes-client/7.5.2", "Bearer someone"));
        assertEquals("unknown", WriteCounts.clientOf(null, null));
        assertEquals("unknown", WriteCounts.clientOf("kube-queue-bench/", null));
    }

    @Test
    void aTallySinceAnEarlierOneHoldsOnlyTheWritesBetween() {
        WriteCounts counts = new WriteCounts();
        counts.count("harness", WriteKind.OTHER);
        counts.count("kube-queue", WriteKind.LEASE);
        WriteCounts.Tally before = counts.tally();
        counts.count("kube-queue", WriteKind.ADMISSION);
        counts.count("kube-queue", WriteKind.EVENT);
        counts.count("kube-queue", WriteKind.EVENT);
        counts.count("reference", WriteKind.ADMISSION);
        WriteCounts.Tally window = counts.tally().since(before);
        assertEquals(1, window.of("kube-queue", WriteKind.ADMISSION));
        assertEquals(2, window.of("kube-queue", WriteKind.EVENT));
        assertEquals(0, window.of("kube-queue", WriteKind.LEASE));
        assertEquals(3, window.of("kube-queue"));
        assertEquals(1, window.of("reference"));
        assertEquals(0, window.of("harness"));
        assertEquals(4, window.total());
        assertEquals(java.util.List.of("kube-queue", "reference"), window.clients());
    }
}
