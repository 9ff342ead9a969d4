package io.kubequeue.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Memory per pending job, as the benchmark prints it (issue 27 item 5). */
class QueueCostTest {

    private static QueueCost cost(int backlog, double pending, long heap) {
        return new QueueCost(backlog, pending, heap, Double.NaN, Double.NaN, Double.NaN, 0);
    }

    @Test
    void heapPerPendingJob() {
        assertEquals(1024.0, cost(100_000, 100_000, 100_000L * 1024).heapPerPendingBytes());
        assertTrue(Double.isNaN(cost(0, 0, 30L << 20).heapPerPendingBytes()), "nothing pending: no figure");
        assertTrue(Double.isNaN(cost(10, 10, -1).heapPerPendingBytes()), "heap not read");
        assertTrue(Double.isNaN(cost(10, Double.NaN, 1).heapPerPendingBytes()), "pending not read");
    }

    @Test
    void marginalHeapLeavesTheFixedPartOut() {
        QueueCost none = cost(0, 0, 30L << 20);
        QueueCost big = cost(100_000, 100_000, (30L << 20) + 100_000L * 600);
        assertEquals(600.0, big.marginalHeapPerPendingBytes(none), 1e-9);
        assertTrue(big.heapPerPendingBytes() > 900, "the plain ratio carries the 30 MiB");
        assertTrue(Double.isNaN(big.marginalHeapPerPendingBytes(null)));
        assertTrue(Double.isNaN(none.marginalHeapPerPendingBytes(none)));
    }

    /** The backlog's heap is read once JOSDK's informers have listed: each controller logged as starting has started. */
    @Test
    void controllersCountAsStartedOnlyWhenEachOneLoggedAsStartingHas(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        java.nio.file.Path log = dir.resolve("kube-queue.log");
        assertEquals(false, QueueCost.controllersStarted(log), "no log yet");
        java.nio.file.Files.writeString(log, "INFO Starting 'job' controller for reconciler: x\n"
                + "INFO Starting 'tfjob' controller for reconciler: y\nINFO 'tfjob' controller started\n");
        assertEquals(false, QueueCost.controllersStarted(log), "job still lists");
        java.nio.file.Files.writeString(log, "INFO 'job' controller started\n", java.nio.file.StandardOpenOption.APPEND);
        assertEquals(true, QueueCost.controllersStarted(log));
    }
}
