package io.kubequeue.operator;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubequeue.scheduler.Scheduler;
import io.kubequeue.testing.Cluster;
import io.kubequeue.testing.WithStrictApiServer;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

/**
 * Issue 29, item 2: with {@code KUBE_QUEUE_CHARGE_UNSUSPENDED_IN=*}, a Job created without {@code spec.suspend} in a
 * namespace a quota group lists (3 cpu in a 4-cpu group) is seen, charged as running outside kube-queue, and gets a
 * {@code StartedOutsideQueue} Warning; the queued job behind it is not admitted past the quota. A namespace in no
 * quota group is left alone, as is every namespace without the setting (the original's behaviour).
 */
@QuarkusTest
@TestProfile(UnsuspendedJobsChargedTest.EveryQuotaGroup.class)
@WithStrictApiServer
class UnsuspendedJobsChargedTest {

    public static class EveryQuotaGroup implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("kube-queue.charge-unsuspended-in", "*");
        }
    }

    @Inject
    KubernetesClient client;

    @Inject
    Scheduler scheduler;

    @Test
    void aJobThatSkipsTheQueueIsChargedAndTheQueuedOneWaits() {
        for (String team : List.of("team-a", "team-b", "elsewhere")) {
            client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(team).endMetadata().build())
                    .createOr(r -> r.update());
        }
        Cluster cluster = new Cluster(client);
        cluster.apply("/quota/two-teams.yaml");
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.tree().node("root.team-a").isPresent());

        // no spec.suspend at all, as most Jobs are written
        client.batch().v1().jobs().inNamespace("team-a").resource(job("bypass", "3", null)).create();
        await("charged as started outside").atMost(Duration.ofSeconds(10)).until(() ->
                "root.team-a".equals(Cluster.admittedGroup(get("team-a", "bypass"))));
        assertEquals(3000L, scheduler.usage("root.team-a").get("cpu"));
        await().atMost(Duration.ofSeconds(10)).until(() -> cluster.events("team-a", "bypass").stream()
                .anyMatch(e -> "StartedOutsideQueue".equals(e.getReason()) && "Warning".equals(e.getType())
                        && e.getNote().contains("created without its suspend mark")));

        // a queued job of 2 cpu does not fit beside it (4 cpu): it waits
        client.batch().v1().jobs().inNamespace("team-a").resource(job("queued", "2", true)).create();
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.pending("root.team-a").size() == 1);
        assertTrue(Boolean.TRUE.equals(get("team-a", "queued").getSpec().getSuspend()), "not admitted past the quota");

        // a namespace in no quota group: left alone, not charged, no event
        client.batch().v1().jobs().inNamespace("elsewhere").resource(job("free", "1", false)).create();
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() ->
                Cluster.admittedGroup(get("elsewhere", "free")) == null);
        assertEquals(List.of(), cluster.events("elsewhere", "free"));

        // a Job another controller owns (an MPIJob's launcher): its owner is what is charged, not this one
        Job launcher = job("pi-launcher", "1", null);
        launcher.getMetadata().setOwnerReferences(List.of(new io.fabric8.kubernetes.api.model.OwnerReferenceBuilder()
                .withApiVersion("kubeflow.org/v2beta1").withKind("MPIJob").withName("pi").withUid("u-pi")
                .withController(true).build()));
        client.batch().v1().jobs().inNamespace("team-a").resource(launcher).create();
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() ->
                Cluster.admittedGroup(get("team-a", "pi-launcher")) == null);
        assertEquals(3000L, scheduler.usage("root.team-a").get("cpu"), "the launcher is not charged");

        // the bypassing job ends: its room goes back and the queued one is admitted
        client.batch().v1().jobs().inNamespace("team-a").withName("bypass").delete();
        await().atMost(Duration.ofSeconds(20)).until(() -> Boolean.FALSE.equals(get("team-a", "queued").getSpec()
                .getSuspend()));
        assertNull(get("team-a", "bypass"));
    }

    private Job get(String namespace, String name) {
        return client.batch().v1().jobs().inNamespace(namespace).withName(name).get();
    }

    private static Job job(String name, String cpu, Boolean suspend) {
        return new JobBuilder().withNewMetadata().withName(name).endMetadata().withNewSpec().withSuspend(suspend)
                .withNewTemplate().withNewSpec().withRestartPolicy("Never").addNewContainer().withName("work")
                .withImage("busybox:stable").withNewResources().addToRequests("cpu", new Quantity(cpu)).endResources()
                .endContainer().endSpec().endTemplate().endSpec().build();
    }
}
