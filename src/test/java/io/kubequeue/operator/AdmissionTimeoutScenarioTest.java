package io.kubequeue.operator;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;


import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.kubequeue.job.Annotations;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.testing.Cluster;
import io.kubequeue.testing.SeedTreeFixture;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.testing.WithStrictApiServer;

/**
 * The admission timeout end to end (issue 16; docs/policies.md, "Admission timeout"): a Job admitted into the seed's
 * group whose only pod stays Pending is suspended again after the timeout, with a Warning event that says it timed
 * out, and its quota is released; a Job whose pod runs is left alone. The mock API server runs no Job controller,
 * so the test creates the pods, labelled as the Job controller labels them.
 */
@QuarkusTest
@TestProfile(AdmissionTimeoutScenarioTest.ShortTimeout.class)
@WithStrictApiServer
class AdmissionTimeoutScenarioTest extends SeedTreeFixture {

    public static class ShortTimeout implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("kube-queue.admission-timeout", "3s");
        }
    }

    /** A pod of the Job, as the Job controller makes it (label controller-uid, controlled by the Job). */
    private void podOf(Job job, String phase) {
        Pod pod = new PodBuilder().withNewMetadata().withName(job.getMetadata().getName() + "-pod")
                .withNamespace("default").addToLabels("controller-uid", job.getMetadata().getUid())
                .addNewOwnerReference().withApiVersion("batch/v1").withKind("Job").withName(job.getMetadata().getName())
                .withUid(job.getMetadata().getUid()).withController(true).endOwnerReference().endMetadata()
                .withNewSpec().addNewContainer().withName("work").withImage("busybox:stable").endContainer().endSpec()
                .withNewStatus().withPhase(phase).endStatus().build();
        client.pods().inNamespace("default").resource(pod).create();
    }

    @Test
    void aJobWhosePodStaysPendingIsSuspendedAgainAfterTheTimeoutAndItsQuotaReleased() {
        cluster.submitJob("runs", "1", Map.of(), null);
        cluster.submitJob("stuck", "2", Map.of(), null);
        await().atMost(Duration.ofSeconds(10)).until(() -> cluster.admitted("runs") && cluster.admitted("stuck"));
        podOf(cluster.job("runs"), "Running");
        podOf(cluster.job("stuck"), "Pending");

        await().atMost(Duration.ofSeconds(15)).until(() -> Cluster.suspended(cluster.job("stuck")));
        // the Job controller deletes the suspended Job's pod; until it is gone the room stays taken (issue 26, item 5)
        assertEquals(JobState.ADMITTED, scheduler.status(new JobKey("Job", "default", "stuck")).orElseThrow()
                .state(), "its pod is still there");
        client.pods().inNamespace("default").withName("stuck-pod").delete();

        Job stuck = cluster.job("stuck");
        assertEquals("timeout", stuck.getMetadata().getAnnotations().get(Annotations.EVICTED));
        assertTrue(!stuck.getMetadata().getAnnotations().get(Annotations.TIMED_OUT_AT).isEmpty());
        await().atMost(Duration.ofSeconds(5)).until(() -> cluster.events("default", "stuck").stream()
                .anyMatch(e -> "Warning".equals(e.getType()) && e.getNote().contains("timed out")));
        await().atMost(Duration.ofSeconds(5)).until(() -> scheduler.status(new JobKey("Job", "default", "stuck"))
                .map(s -> s.state() == JobState.BACKOFF).orElse(false));
        assertEquals(1000, scheduler.usage(SEED_GROUP).get("cpu"), "only the running Job is charged");
        assertTrue(cluster.admitted("runs"), "a Job whose pod runs does not time out");
        Event warning = cluster.events("default", "stuck").stream().filter(e -> "Warning".equals(e.getType()))
                .findFirst().orElseThrow();
        assertEquals("AdmissionTimedOut", warning.getReason());
    }
}
