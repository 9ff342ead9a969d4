package io.kubequeue.operator;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.function.Consumer;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.kubequeue.job.Annotations;
import io.kubequeue.scheduler.Scheduler;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.testing.Cluster;
import io.kubequeue.testing.TerminatingPods;
import io.kubequeue.testing.TrustedRecords;
import io.kubequeue.testing.WithStrictApiServer;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/**
 * Issue 26, sequence 5 across a restart: the earlier leader suspended gpu-b's b-victim for gpu-a's a-1, and b-victim's
 * pod is still terminating when kube-queue starts (the Job counts it in {@code status.terminating}). State is rebuilt
 * from the cluster: b-victim is charged again until its pod is gone, and only then is a-1 admitted (2 GPUs of the
 * root's 4 are held by b-running throughout).
 */
@QuarkusTest
@TestProfile(ReclaimRestartTest.ReclaimOn.class)
@WithStrictApiServer(setup = VictimPodsRestartTest.VictimStillTerminating.class)
class VictimPodsRestartTest {

    /** The cluster as the earlier leader left it; runs before the application starts. */
    public static class VictimStillTerminating implements Consumer<KubernetesMockServer> {
        @Override
        public void accept(KubernetesMockServer server) {
            KubernetesClient client = server.createClient();
            try (InputStream tree = VictimPodsRestartTest.class.getResourceAsStream("/reclaim/gpu-tree.yaml")) {
                for (HasMetadata o : Manifests.read(client, tree)) {
                    client.resource(o).create();
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            Instant evictedAt = Instant.now().minusSeconds(5);
            TrustedRecords.createSigned(client, ReclaimRestartTest.job("gpu-b", "b-running", 0, false, Map.of(
                    Annotations.QUOTA_GROUP, "gpu-b", Annotations.ADMITTED_AT, evictedAt.minusSeconds(60).toString())));
            Job victim = TrustedRecords.createSigned(client, ReclaimRestartTest.job("gpu-b", "b-victim", 0, true, Map.of(
                    Annotations.QUOTA_GROUP, "gpu-b", Annotations.ADMITTED_AT, evictedAt.minusSeconds(30).toString(),
                    Annotations.EVICTED, "reclaim", Annotations.EVICTED_FOR, "Job/gpu-a/a-1",
                    Annotations.RECLAIMED_AT, evictedAt.toString(), Annotations.TIMED_OUT_AT, "")));
            TerminatingPods pods = new TerminatingPods(client);
            pods.running(victim);
            pods.terminate(victim);
            client.resource(ReclaimRestartTest.job("gpu-a", "a-1", 0, true, Map.of())).create();
        }
    }

    @Inject
    KubernetesClient client;

    @Inject
    Scheduler scheduler;

    private Job get(String namespace, String name) {
        return client.batch().v1().jobs().inNamespace(namespace).withName(name).get();
    }

    @Test
    void theNewLeaderChargesTheVictimUntilItsPodIsGoneThenAdmitsThePreemptor() {
        await().atMost(Duration.ofSeconds(15)).until(() -> scheduler.status(new JobKey("Job", "gpu-a", "a-1"))
                .isPresent() && scheduler.status(new JobKey("Job", "gpu-b", "b-victim")).isPresent());
        assertEquals(JobState.ADMITTED, scheduler.status(new JobKey("Job", "gpu-b", "b-victim")).orElseThrow()
                .state(), "suspended, but its pod terminates: charged as before the restart");
        await().during(Duration.ofSeconds(6)).atMost(Duration.ofSeconds(7))
                .until(() -> Cluster.suspended(get("gpu-a", "a-1")));
        assertEquals(4, scheduler.usage("root").get("nvidia.com/gpu"), "b-victim's terminating pod still holds 2");

        new TerminatingPods(client).gone(get("gpu-b", "b-victim"));

        await().atMost(Duration.ofSeconds(15)).until(() -> !Cluster.suspended(get("gpu-a", "a-1")));
        assertEquals("gpu-a", Cluster.admittedGroup(get("gpu-a", "a-1")));
        assertEquals(4, scheduler.usage("root").get("nvidia.com/gpu"), "never over the root's 4 GPUs");
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3))
                .until(() -> Cluster.suspended(get("gpu-b", "b-victim")));
        new Cluster(client).clear();
    }
}
