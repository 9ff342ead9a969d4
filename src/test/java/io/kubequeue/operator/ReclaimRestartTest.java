package io.kubequeue.operator;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.kubequeue.job.Annotations;
import io.kubequeue.scheduler.Scheduler;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.testing.Cluster;
import io.kubequeue.testing.TrustedRecords;
import io.kubequeue.testing.WithStrictApiServer;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

/**
 * A restart between suspending a reclaim's victim and admitting its preemptor (issue 16, item 4): before kube-queue
 * starts, the cluster holds the GPU tree, gpu-b's b-running (admitted, 2 GPUs), gpu-b's b-victim (suspended again by
 * an earlier leader for gpu-a's a-1, carrying its marks, priority 100) and a-1 (suspended, priority 0). 2 GPUs are
 * free: either b-victim or a-1 fits, not both. The new leader must finish the reclaim: a-1 is admitted, and b-victim,
 * though it has the higher priority, stays suspended.
 */
@QuarkusTest
@TestProfile(ReclaimRestartTest.ReclaimOn.class)
@WithStrictApiServer(setup = ReclaimRestartTest.SuspendedForA1.class)
class ReclaimRestartTest {

    public static class ReclaimOn implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("kube-queue.reclaim.enabled", "true");
        }
    }

    /** The cluster as the earlier leader left it; runs before the application starts. */
    public static class SuspendedForA1 implements Consumer<KubernetesMockServer> {
        @Override
        public void accept(KubernetesMockServer server) {
            KubernetesClient client = server.createClient();
            try (InputStream tree = ReclaimRestartTest.class.getResourceAsStream("/reclaim/gpu-tree.yaml")) {
                for (HasMetadata o : Manifests.read(client, tree)) {
                    client.resource(o).create();
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            Instant evictedAt = Instant.now().minusSeconds(5);
            create(client, job("gpu-b", "b-running", 0, false, Map.of(Annotations.QUOTA_GROUP, "gpu-b",
                    Annotations.ADMITTED_AT, evictedAt.minusSeconds(60).toString())));
            create(client, job("gpu-b", "b-victim", 100, true, Map.of(Annotations.QUOTA_GROUP, "gpu-b",
                    Annotations.ADMITTED_AT, evictedAt.minusSeconds(30).toString(), Annotations.EVICTED, "reclaim",
                    Annotations.EVICTED_FOR, "Job/gpu-a/a-1", Annotations.RECLAIMED_AT, evictedAt.toString(),
                    Annotations.TIMED_OUT_AT, "")));
            create(client, job("gpu-a", "a-1", 0, true, Map.of()));
        }

        /** Creates the job; its record and history as the earlier leader wrote them, signed. */
        private static void create(KubernetesClient client, Job job) {
            TrustedRecords.createSigned(client, job);
        }
    }

    static Job job(String namespace, String name, int priority, boolean suspended, Map<String, String> annotations) {
        return new JobBuilder().withNewMetadata().withName(name).withNamespace(namespace).withAnnotations(annotations)
                .endMetadata().withNewSpec().withSuspend(suspended).withNewTemplate().withNewSpec()
                .withRestartPolicy("Never").withPriority(priority).addNewContainer().withName("work")
                .withImage("busybox:stable").withNewResources().addToRequests("nvidia.com/gpu", new Quantity("2"))
                .endResources().endContainer().endSpec().endTemplate().endSpec().build();
    }

    @Inject
    KubernetesClient client;

    @Inject
    Scheduler scheduler;

    private Job get(String namespace, String name) {
        return client.batch().v1().jobs().inNamespace(namespace).withName(name).get();
    }

    @Test
    void theNewLeaderAdmitsThePreemptorBeforeItsHigherPriorityVictim() {
        await().atMost(Duration.ofSeconds(15)).until(() -> !Boolean.TRUE.equals(get("gpu-a", "a-1").getSpec().getSuspend()));
        assertEquals("gpu-a", Cluster.admittedGroup(get("gpu-a", "a-1")));
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3))
                .until(() -> Boolean.TRUE.equals(get("gpu-b", "b-victim").getSpec().getSuspend()));
        assertEquals(JobState.BACKOFF, scheduler.status(new JobKey("Job", "gpu-b", "b-victim")).orElseThrow().state());
        assertEquals(4, scheduler.usage("root").get("nvidia.com/gpu"), "never over the root's 4 GPUs");
        assertTrue(!Boolean.TRUE.equals(get("gpu-b", "b-running").getSpec().getSuspend()));
        new Cluster(client).clear();
    }
}
