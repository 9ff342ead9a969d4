package io.kubequeue.operator;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.api.model.ResourceQuotaBuilder;
import io.fabric8.kubernetes.api.model.ResourceQuotaStatusBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubequeue.scheduler.Scheduler;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.kubequeue.testing.WithStrictApiServer;
import io.kubequeue.testing.Cluster;

/** The seed's ResourceQuota example: {@code QueueGroupPlugin=resourcequota}, namespace default has cpu 4. */
@QuarkusTest
@TestProfile(ResourceQuotaSeedTest.ResourceQuotaPlugin.class)
@WithStrictApiServer
class ResourceQuotaSeedTest {

    /** Sets the seed's env var name, as {@code kubectl edit deploy} would. */
    public static class ResourceQuotaPlugin implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("QueueGroupPlugin", "resourcequota");
        }
    }

    @Inject
    KubernetesClient client;

    @Inject
    Scheduler scheduler;

    @AfterEach
    void tearDown() {
        new Cluster(client).clear();
    }

    @Test
    void oneSeedJobIsAdmittedTheOtherWaitsUntilItHasSucceeded() {
        Cluster cluster = new Cluster(client);
        cluster.apply("/seed/resourcequota.yaml");
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.tree().node("default").isPresent()
                && scheduler.tree().node("default").get().max().has("cpu"));
        cluster.apply("/seed/tfjobs-resourcequota.yaml");

        String running = cluster.awaitOneSeedJobAdmitted();
        String queued = Cluster.other(running);
        assertEquals("default", Cluster.admittedGroup(cluster.tfJob(running)));
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3))
                .until(() -> Cluster.suspended(cluster.tfJob(queued)));

        cluster.succeed(running);
        await().atMost(Duration.ofSeconds(10)).until(() -> !Cluster.suspended(cluster.tfJob(queued)));
        assertEquals("default", Cluster.admittedGroup(cluster.tfJob(queued)));
    }

    /**
     * {@code requests.cpu: 6}; a pod kube-queue does not manage already uses 1 cpu. A (3 cpu) is admitted and its
     * pod starts, so {@code status.used} reads 4: the pod is counted once, not twice (B, 2 cpu, still fits: 1 + 3
     * + 2 = 6), and the unmanaged pod is counted (C, 1 cpu, does not: 7 > 6).
     */
    @Test
    void requestsCpuIsEnforcedAndAPodInStatusUsedIsCountedOnce() {
        Cluster cluster = new Cluster(client);
        ResourceQuota quota = client.resourceQuotas().inNamespace("default").resource(new ResourceQuotaBuilder()
                .withNewMetadata().withName("team").withNamespace("default").endMetadata()
                .withNewSpec().addToHard("requests.cpu", new Quantity("6")).addToHard("count/jobs.batch", new Quantity("50"))
                .endSpec().build()).create();
        quotaUses(quota, "1"); // the unmanaged pod, as the quota controller counts it
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.externalUsage("default").get("cpu") == 1000);

        Job a = cluster.submitJob("a", "3", Map.of(), null);
        await().atMost(Duration.ofSeconds(10)).until(() -> cluster.admitted("a"));
        // the Job controller starts A's pod, then the quota controller counts it
        startPod("a-pod", a, "3");
        quotaUses(quota, "4");
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.externalUsage("default").get("cpu") == 1000
                && client.resourceQuotas().inNamespace("default").withName("team").get().getStatus() != null);

        cluster.submitJob("b", "2", Map.of(), null);
        await().atMost(Duration.ofSeconds(10)).until(() -> cluster.admitted("b"));
        cluster.submitJob("c", "1", Map.of(), null);
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(4)).until(() -> !cluster.admitted("c"));
        assertEquals(5000, scheduler.usage("default").get("cpu"), "kube-queue holds A and B");
    }

    /**
     * A (3 cpu) runs; its Job is deleted while its pod still runs (background deletion, a grace period, or
     * {@code --cascade=orphan}). The pod still uses the quota, so B (2 cpu) must wait until it is gone.
     */
    @Test
    void podsOfAJobThatLeftTheQueueStayCountedUntilTheyAreGone() {
        Cluster cluster = new Cluster(client);
        ResourceQuota quota = client.resourceQuotas().inNamespace("default").resource(new ResourceQuotaBuilder()
                .withNewMetadata().withName("team").withNamespace("default").endMetadata()
                .withNewSpec().addToHard("requests.cpu", new Quantity("4")).endSpec().build()).create();
        cluster.countQuota(quota);
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.tree().node("default").get().max().has("cpu"));
        Job a = cluster.submitJob("a", "3", Map.of(), null);
        await().atMost(Duration.ofSeconds(10)).until(() -> cluster.admitted("a"));
        startPod("a-pod", a, "3");
        quotaUses(quota, "3");
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.externalUsage("default").get("cpu") == 0
                && scheduler.usage("default").get("cpu") == 3000);

        client.batch().v1().jobs().inNamespace("default").withName("a").withPropagationPolicy(
                io.fabric8.kubernetes.api.model.DeletionPropagation.ORPHAN).delete();
        cluster.submitJob("b", "2", Map.of(), null);
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5)).until(() -> !cluster.admitted("b"));

        client.pods().inNamespace("default").withName("a-pod").delete();
        quotaUses(quota, "0");
        await().atMost(Duration.ofSeconds(25)).until(() -> cluster.admitted("b"));
    }

    /**
     * Two quotas: "all" (10 cpu, 8 used by other pods, e.g. of another scope) and "small" (4 cpu, none used).
     * The room is the least either leaves, 2 cpu: a 2-cpu job fits, a 3-cpu one does not.
     */
    @Test
    void withTwoQuotasTheLeastRoomEitherLeavesDecides() {
        Cluster cluster = new Cluster(client);
        ResourceQuota all = client.resourceQuotas().inNamespace("default").resource(new ResourceQuotaBuilder()
                .withNewMetadata().withName("all").withNamespace("default").endMetadata()
                .withNewSpec().addToHard("requests.cpu", new Quantity("10")).endSpec().build()).create();
        cluster.countQuota(client.resourceQuotas().inNamespace("default").resource(new ResourceQuotaBuilder()
                .withNewMetadata().withName("small").withNamespace("default").endMetadata()
                .withNewSpec().addToHard("cpu", new Quantity("4")).endSpec().build()).create());
        quotaUses(all, "8");
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.tree().node("default").get().max().get("cpu") == 4000
                && scheduler.externalUsage("default").get("cpu") == 2000);

        cluster.submitJob("three", "3", Map.of(), null);
        cluster.submitJob("two", "2", Map.of(), null);
        await().atMost(Duration.ofSeconds(10)).until(() -> cluster.admitted("two"));
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(4)).until(() -> !cluster.admitted("three"));
    }

    private void startPod(String name, Job job, String cpu) {
        client.pods().inNamespace("default").resource(new PodBuilder().withNewMetadata().withName(name)
                .withLabels(Map.of("controller-uid", job.getMetadata().getUid(),
                        "batch.kubernetes.io/controller-uid", job.getMetadata().getUid()))
                .addNewOwnerReference().withApiVersion("batch/v1").withKind("Job").withName(job.getMetadata().getName())
                .withUid(job.getMetadata().getUid()).withController(true).endOwnerReference().endMetadata()
                .withNewSpec().addNewContainer().withName("work").withImage("busybox:stable").withNewResources()
                .addToRequests("cpu", new Quantity(cpu)).endResources().endContainer().endSpec()
                .withNewStatus().withPhase("Running").endStatus().build()).create();
    }

    private void quotaUses(ResourceQuota quota, String cpu) {
        ResourceQuota current = client.resourceQuotas().inNamespace("default").withName(quota.getMetadata().getName()).get();
        current.setStatus(new ResourceQuotaStatusBuilder().addToHard(current.getSpec().getHard())
                .addToUsed("requests.cpu", new Quantity(cpu)).addToUsed("count/jobs.batch", new Quantity("1")).build());
        client.resourceQuotas().inNamespace("default").resource(current).updateStatus();
    }

    /**
     * A new ResourceQuota in a busy namespace has no status yet: its {@code status.used} would read as nothing
     * used. The namespace is held, saying why, until the quota controller has counted it.
     */
    @Test
    void aQuotaNotCountedYetHoldsItsNamespaceUntilItIs() {
        Cluster cluster = new Cluster(client);
        ResourceQuota quota = client.resourceQuotas().inNamespace("default").resource(new ResourceQuotaBuilder()
                .withNewMetadata().withName("fresh").withNamespace("default").endMetadata()
                .withNewSpec().addToHard("requests.cpu", new Quantity("4")).endSpec().build()).create();
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.tree().node("default").get().max().has("cpu"));
        cluster.submitJob("early", "1", Map.of(), null);
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3)).until(() -> !cluster.admitted("early"));
        String reason = scheduler.pending("default").get(0).reason().toString();
        assertTrue(reason.contains("ResourceQuota default/fresh has no status"), reason);

        quotaUses(quota, "3"); // counted: other pods already use 3 of 4
        await().atMost(Duration.ofSeconds(10)).until(() -> cluster.admitted("early"));
        assertEquals(3000, scheduler.externalUsage("default").get("cpu"));
    }

    @Test
    void aNamespaceWithoutResourceQuotaIsUnlimited() {
        Cluster cluster = new Cluster(client);
        cluster.apply("/seed/tfjobs-resourcequota.yaml");
        await().atMost(Duration.ofSeconds(10)).until(() -> !Cluster.suspended(cluster.tfJob("job1"))
                && !Cluster.suspended(cluster.tfJob("job2")));
    }
}
