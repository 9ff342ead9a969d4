package io.kubequeue.events;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import io.kubequeue.config.KubeQueueConfig;
import io.kubequeue.testing.TestConfig;

/**
 * The shipped budget on the loads of issue 27 (docs/observability.md, "Events and their budget", has the same
 * arithmetic), counted on a clock of the test's own: every event kube-queue asks for is offered as the load would
 * ask for it, with admissions never waiting (the worst case: waiting admissions only hold events back), and the
 * events written are counted against the admissions.
 */
class ShippedBudgetTest {

    private static final long SECOND = 1_000_000_000L;

    /**
     * Writes per admission when {@code jobs} jobs are admitted at {@code perSecond}, each asking for
     * {@code eventsPerJob} events of different reasons.
     */
    private static double eventsPerAdmission(int jobs, int perSecond, String... reasons) {
        KubeQueueConfig.Events shipped = TestConfig.kubeQueue(Map.of()).events();
        AtomicLong nanos = new AtomicLong();
        EventTally tally = new EventTally();
        EventBudget<String> budget = new EventBudget<>(new EventBudget.Settings(shipped.rate(), shipped.burst(),
                shipped.aggregateInterval(), shipped.maxWait(), shipped.queueSize()), nanos::get, tally);
        long written = 0;
        for (int job = 0; job < jobs; job++) {
            nanos.set(job * SECOND / perSecond);
            for (String reason : reasons) {
                budget.offer("job-" + job + "/" + reason, "job-" + job, false, reason, reason + " now");
            }
            for (var next = budget.next(); next.isPresent(); next = budget.next()) {
                written++;
            }
        }
        return (double) written / jobs;
    }

    @Test
    void theBurstOf10000JobsCostsAtMostOneFifthOfAWritePerAdmission() {
        // kube-queue's measured burst rate (107/s); each job: Admitted (the cycle that saw it admitted it)
        double perAdmission = eventsPerAdmission(10_000, 107, "Admitted");
        assertTrue(perAdmission <= 0.2, "events per admission: " + perAdmission);
        // slower still, the same budget holds: 10,000 jobs over 300 s
        assertTrue(eventsPerAdmission(10_000, 34, "Admitted") <= 0.2);
    }

    @Test
    void theBaselineOf15000JobsCostsAtMostOneTenthOfAWritePerAdmission() {
        // ~100 admissions/s over ~150 s; at worst every job waits a cycle: Queued, Pending and Admitted
        double perAdmission = eventsPerAdmission(15_000, 100, "Queued", "Pending", "Admitted");
        assertTrue(perAdmission <= 0.1, "events per admission: " + perAdmission);
    }
}
