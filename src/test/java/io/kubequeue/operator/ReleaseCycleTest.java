package io.kubequeue.operator;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.testing.WithStrictApiServer;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.kubequeue.testing.SeedTreeFixture;

/**
 * The batch window orders jobs submitted together; room released by a job that ends is given out at once. (Seen
 * in the benchmark: a 100 ms wait after every release kept each job's quota that much longer, docs/performance.md.)
 * The window is 8 s here so that waiting for it would show.
 */
@QuarkusTest
@TestProfile(ReleaseCycleTest.LongBatchWindow.class)
@WithStrictApiServer
class ReleaseCycleTest extends SeedTreeFixture {

    public static class LongBatchWindow implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("kube-queue.admission.batch-window", "8s");
        }
    }

    @Test
    void aReleaseRunsTheCycleAtOnceWhileANewJobAloneWaitsForTheWindow() {
        cluster.submitJob("first", "4", Map.of(), null); // the seed's group holds 4 cpu
        await().atMost(Duration.ofSeconds(20)).until(() -> cluster.admitted("first"));

        cluster.submitJob("next", "4", Map.of(), null);
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.status(new JobKey("Job", "default", "next")).isPresent());
        assertFalse(cluster.admitted("next"), "the group is full");

        cluster.complete("first");
        // the arrival's cycle is due 8 s after it; the release's must not wait for it
        await().atMost(Duration.ofSeconds(4)).until(() -> cluster.admitted("next"));
    }
}
