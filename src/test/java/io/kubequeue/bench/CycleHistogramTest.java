package io.kubequeue.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** A run's cycle quantiles from two readings of kube-queue's histogram. */
class CycleHistogramTest {

    private static String text(double b1ms, double b2ms, double b10ms, double inf) {
        return String.join("\n",
                "# TYPE kube_queue_scheduling_cycle_seconds histogram",
                "kube_queue_scheduling_cycle_seconds_bucket{le=\"0.001\",} " + b1ms,
                "kube_queue_scheduling_cycle_seconds_bucket{le=\"0.002\",} " + b2ms,
                "kube_queue_scheduling_cycle_seconds_bucket{le=\"0.01\",} " + b10ms,
                "kube_queue_scheduling_cycle_seconds_bucket{le=\"+Inf\",} " + inf,
                "kube_queue_scheduling_cycle_seconds_count " + inf,
                "kube_queue_scheduling_cycle_seconds{quantile=\"0.5\",} 0.0042");
    }

    @Test
    void quantilesAreThoseOfTheCyclesBetweenTwoReadings() {
        // before: 1,000 fast cycles; between the readings: 100 more fast ones and 100 of 2-10 ms
        CycleHistogram before = CycleHistogram.parse(text(1000, 1000, 1000, 1000), QueueCost.CYCLE_SERIES);
        CycleHistogram after = CycleHistogram.parse(text(1100, 1100, 1200, 1200), QueueCost.CYCLE_SERIES);
        CycleHistogram run = after.since(before);
        assertEquals(200, run.count());
        // rank 100 of 200 is the last of the fast bucket: its upper bound
        assertEquals(0.001, run.quantile(0.5), 1e-12);
        // rank 198: 98 of the 100 in (2 ms, 10 ms], linear within it
        assertEquals(0.002 + 0.008 * 98 / 100, run.quantile(0.99), 1e-12);
        // read over the whole history instead, the slow cycles hide behind the 1,000 fast ones
        assertEquals(0.002 + 0.008 * 80 / 100, run.quantile(0.9), 1e-12);
        assertEquals(0.001 * 1080 / 1100, after.quantile(0.9), 1e-12);
    }

    @Test
    void aRankInTheOpenBucketGivesTheHighestFiniteBound() {
        CycleHistogram h = CycleHistogram.parse(text(0, 0, 1, 10), QueueCost.CYCLE_SERIES);
        assertEquals(0.01, h.quantile(0.99), 1e-12);
    }

    @Test
    void noBucketsOrNoCyclesGiveNoFigure() {
        assertTrue(Double.isNaN(CycleHistogram.NONE.quantile(0.5)));
        CycleHistogram same = CycleHistogram.parse(text(5, 5, 5, 5), QueueCost.CYCLE_SERIES);
        assertTrue(Double.isNaN(same.since(same).quantile(0.99)));
    }
}
