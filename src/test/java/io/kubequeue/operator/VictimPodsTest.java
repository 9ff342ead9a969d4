package io.kubequeue.operator;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubequeue.scheduler.Scheduler;
import io.kubequeue.testing.Cluster;
import io.kubequeue.testing.TerminatingPods;
import io.kubequeue.testing.WithStrictApiServer;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

/**
 * Issue 26, sequence 5: a reclaim's victim keeps its room until its pods are gone. The victim is suspended while its
 * pod runs; the Job controller then deletes the pod, which terminates (its grace period: minutes for a trainer that
 * checkpoints on SIGTERM) and is reported in {@code status.terminating}. The preemptor must not be admitted until the
 * pod is gone and the Job's status says nothing is active: before, it was admitted in the cycle after the victim's
 * suspend mark was seen, while the victim's pod still held its GPUs.
 */
@QuarkusTest
@TestProfile(VictimPodsTest.ReclaimOn.class)
@WithStrictApiServer
class VictimPodsTest {

    public static class ReclaimOn implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("kube-queue.reclaim.enabled", "true", "kube-queue.backoff.initial", "1s",
                    "kube-queue.backoff.max", "2s");
        }
    }

    @Inject
    KubernetesClient client;

    @Inject
    Scheduler scheduler;

    @AfterEach
    void clear() {
        client.pods().inAnyNamespace().delete();
        new Cluster(client).clear();
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.jobs().isEmpty());
    }

    private Job submit(String namespace, String name) {
        Job job = new JobBuilder().withNewMetadata().withName(name).withNamespace(namespace).endMetadata()
                .withNewSpec().withSuspend(true).withNewTemplate().withNewSpec().withRestartPolicy("Never")
                .addNewContainer().withName("work").withImage("busybox:stable").withNewResources()
                .addToRequests("nvidia.com/gpu", new Quantity("2")).endResources().endContainer().endSpec()
                .endTemplate().endSpec().build();
        return client.batch().v1().jobs().inNamespace(namespace).resource(job).create();
    }

    private Job job(String namespace, String name) {
        return client.batch().v1().jobs().inNamespace(namespace).withName(name).get();
    }

    private boolean admitted(String namespace, String name) {
        Job job = job(namespace, name);
        return !Boolean.TRUE.equals(job.getSpec().getSuspend()) && Cluster.admittedGroup(job) != null;
    }

    @Test
    void thePreemptorWaitsUntilTheVictimsPodIsGoneAndItsJobSaysNothingIsActive() {
        new Cluster(client).apply("/reclaim/gpu-tree.yaml");
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.tree().node("gpu-a").isPresent());
        submit("gpu-b", "b-1");
        submit("gpu-b", "b-2");
        await().atMost(Duration.ofSeconds(10)).until(() -> admitted("gpu-b", "b-1") && admitted("gpu-b", "b-2"));
        TerminatingPods pods = new TerminatingPods(client);
        for (String name : List.of("b-1", "b-2")) {
            pods.running(job("gpu-b", name));
        }

        submit("gpu-a", "a-1");
        await().atMost(Duration.ofSeconds(15)).until(() -> Cluster.suspended(job("gpu-b", "b-1"))
                || Cluster.suspended(job("gpu-b", "b-2")));
        Job victim = Cluster.suspended(job("gpu-b", "b-1")) ? job("gpu-b", "b-1") : job("gpu-b", "b-2");
        // the Job controller deletes the suspended Job's pod: it terminates, and the Job counts it terminating
        pods.terminate(victim);

        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(4)).until(() -> !admitted("gpu-a", "a-1"));
        assertEquals(4, scheduler.usage("root").get("nvidia.com/gpu"), "the victim's pod still holds its 2 GPUs");

        pods.gone(victim); // the pod is deleted; the Job's status.terminating goes to 0
        await().atMost(Duration.ofSeconds(10)).until(() -> admitted("gpu-a", "a-1"));
        assertEquals(4, scheduler.usage("root").get("nvidia.com/gpu"), "never over the root's 4 GPUs");
        assertFalse(admitted("gpu-b", victim.getMetadata().getName()));
    }

    @Test
    void aVictimWhoseJobStillCountsAnActivePodKeepsItsRoomThoughNoPodIsSeen() {
        new Cluster(client).apply("/reclaim/gpu-tree.yaml");
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.tree().node("gpu-a").isPresent());
        submit("gpu-b", "b-1");
        submit("gpu-b", "b-2");
        await().atMost(Duration.ofSeconds(10)).until(() -> admitted("gpu-b", "b-1") && admitted("gpu-b", "b-2"));
        TerminatingPods pods = new TerminatingPods(client);
        for (String name : List.of("b-1", "b-2")) {
            pods.activeInStatus(job("gpu-b", name), 1, 0); // pods kube-queue's pod watch does not see (another label)
        }

        submit("gpu-a", "a-1");
        await().atMost(Duration.ofSeconds(15)).until(() -> Cluster.suspended(job("gpu-b", "b-1"))
                || Cluster.suspended(job("gpu-b", "b-2")));
        Job victim = Cluster.suspended(job("gpu-b", "b-1")) ? job("gpu-b", "b-1") : job("gpu-b", "b-2");
        pods.activeInStatus(victim, 0, 1); // being deleted: status.terminating

        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(4)).until(() -> !admitted("gpu-a", "a-1"));

        pods.activeInStatus(victim, 0, 0);
        await().atMost(Duration.ofSeconds(10)).until(() -> admitted("gpu-a", "a-1"));
        assertEquals(4, scheduler.usage("root").get("nvidia.com/gpu"), "never over the root's 4 GPUs");
    }
}
