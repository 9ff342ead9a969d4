package io.kubequeue.operator;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Map;
import io.kubequeue.testing.SeedTreeFixture;

/**
 * The seed's ElasticQuotaTree (namespace default may use 4 cpu) extended with a large job, for the tests of the
 * seed's two switches: {@code a-running} (3 cpu) is admitted; then {@code b-waiting} (3), {@code c-large} (4)
 * and {@code d-small} (1) queue, in that order (names break creation-time ties the same way).
 */
abstract class PolicyScenario extends SeedTreeFixture {

    /** Runs a-running, then queues b-waiting, c-large and d-small behind it. */
    void runningThenWaitingLargeSmall() {
        cluster.submitJob("a-running", "3", Map.of(), null);
        await().atMost(Duration.ofSeconds(10)).until(() -> cluster.admitted("a-running"));
        cluster.submitJob("b-waiting", "3", Map.of(), null);
        cluster.submitJob("c-large", "4", Map.of(), null);
        cluster.submitJob("d-small", "1", Map.of(), null);
    }

    /** Waits {@code seconds} and checks the job stayed suspended all along. */
    void staysSuspended(String job, int seconds) {
        await().during(Duration.ofSeconds(seconds)).atMost(Duration.ofSeconds(seconds + 2))
                .until(() -> !cluster.admitted(job));
    }

    void admittedWithin(String job, int seconds) {
        await().atMost(Duration.ofSeconds(seconds)).until(() -> cluster.admitted(job));
    }
}
