package io.kubequeue.operator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.kubequeue.job.JobPods;
import io.kubequeue.scheduler.Scheduler;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.SchedulerSettings;
import io.kubequeue.testing.WithStrictApiServer;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

/**
 * The global admission timeout under the ElasticQuotaTree plugin: it reaches the scheduler, and start-up has the pod
 * watch listed before it is ready (and so before it may admit), though this plugin needs no pods otherwise.
 */
@QuarkusTest
@TestProfile(GlobalAdmissionTimeoutTest.TenMinutes.class)
@WithStrictApiServer
class GlobalAdmissionTimeoutTest {

    /** As the env var KUBE_QUEUE_ADMISSION_TIMEOUT=10m would set it. */
    public static class TenMinutes implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("kube-queue.admission-timeout", "10m", "kube-queue.reclaim.enabled", "true");
        }
    }

    @Inject
    Scheduler scheduler;

    @Inject
    JobPods pods;

    @Test
    void thePodWatchIsListedByTheTimeStartUpIsDone() {
        assertEquals(Duration.ofMinutes(10), scheduler.settings().admissionTimeout());
        assertEquals(new SchedulerSettings.Reclaim(true, 3), scheduler.settings().reclaim());
        assertTrue(pods.started());
        assertTrue(pods.awaitFirstList(Duration.ZERO), "listed during start-up");
        assertFalse(pods.runs(new JobKey("Job", "default", "none")), "known not to run: it has no pod");
    }
}
