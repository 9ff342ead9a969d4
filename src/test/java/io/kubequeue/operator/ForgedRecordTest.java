package io.kubequeue.operator;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.kubequeue.job.Annotations;
import io.kubequeue.scheduler.Scheduler;
import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobStatus;
import io.kubequeue.testing.Cluster;
import io.kubequeue.testing.WithStrictApiServer;
import io.quarkus.test.junit.QuarkusTest;

/**
 * Issue 25, sequence 5, end to end: a tenant of team-a creates a job running (never suspended) with a hand-written
 * admission record {@code kube-queue/quota-group: root}, once before kube-queue starts (start-up recovery reads it)
 * and once while it runs (the informer does); together they ask team-a's whole max. Charged to root, they would
 * leave team-a free to admit its max again, into root's room that team-b is owed. Each is charged as started outside
 * kube-queue in team-a instead, gets one Warning event and kube-queue's own record: team-a is full, team-b admits.
 */
@QuarkusTest
@WithStrictApiServer(setup = ForgedRecordTest.ForgedBeforeStart.class)
class ForgedRecordTest {

    private static final Map<String, String> ROOT_RECORD = Map.of(Annotations.QUOTA_GROUP, "root",
            Annotations.ADMITTED_AT, "2026-01-01T00:00:00.000Z");

    /** The tree and the first forged job, before kube-queue starts. */
    public static class ForgedBeforeStart implements Consumer<KubernetesMockServer> {
        @Override
        public void accept(KubernetesMockServer server) {
            KubernetesClient client = server.createClient();
            try (InputStream tree = ForgedRecordTest.class.getResourceAsStream("/quota/two-teams.yaml")) {
                for (HasMetadata o : io.kubequeue.operator.Manifests.read(client, tree)) {
                    client.resource(o).create();
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            client.batch().v1().jobs().inNamespace("team-a").resource(job("team-a", "before-start", false, "2",
                    ROOT_RECORD)).create();
        }
    }

    static Job job(String namespace, String name, boolean suspended, String cpu, Map<String, String> annotations) {
        return new JobBuilder().withNewMetadata().withName(name).withNamespace(namespace).withAnnotations(annotations)
                .endMetadata().withNewSpec().withSuspend(suspended).withNewTemplate().withNewSpec()
                .withRestartPolicy("Never").addNewContainer().withName("work").withImage("busybox:stable")
                .withNewResources().addToRequests("cpu", new Quantity(cpu)).endResources().endContainer().endSpec()
                .endTemplate().endSpec().build();
    }

    @Inject
    KubernetesClient client;

    @Inject
    Scheduler scheduler;

    private Job get(String namespace, String name) {
        return client.batch().v1().jobs().inNamespace(namespace).withName(name).get();
    }

    private boolean recordedAsStartedOutsideInTeamA(String name) {
        Map<String, String> annotations = get("team-a", name).getMetadata().getAnnotations();
        return "root.team-a".equals(annotations.get(Annotations.QUOTA_GROUP))
                && AdmissionRecord.STARTED_OUTSIDE.equals(annotations.get(Annotations.ADMITTED_AT));
    }

    private List<Event> warnings(String name) {
        return new Cluster(client).events("team-a", name).stream().filter(e -> "Warning".equals(e.getType())).toList();
    }

    @Test
    void aHandWrittenRecordToRootIsChargedInTheTenantsOwnGroupAndTheOtherTeamStillAdmits() {
        client.batch().v1().jobs().inNamespace("team-a").resource(job("team-a", "while-running", false, "2",
                ROOT_RECORD)).create();
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.status(new JobKey("Job", "team-a",
                "while-running")).isPresent());
        client.batch().v1().jobs().inNamespace("team-a").resource(job("team-a", "same-team", true, "2", Map.of()))
                .create();
        client.batch().v1().jobs().inNamespace("team-b").resource(job("team-b", "other-team", true, "2", Map.of()))
                .create();

        await().atMost(Duration.ofSeconds(15)).until(() -> !Boolean.TRUE.equals(get("team-b", "other-team")
                .getSpec().getSuspend()));
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3)).until(() -> Boolean.TRUE.equals(
                get("team-a", "same-team").getSpec().getSuspend()));
        for (String forged : List.of("before-start", "while-running")) {
            JobStatus status = scheduler.status(new JobKey("Job", "team-a", forged)).orElseThrow();
            assertEquals("root.team-a", status.group(), forged);
            assertTrue(status.record().startedOutside(), forged + ": " + status.record());
            await().atMost(Duration.ofSeconds(10)).until(() -> recordedAsStartedOutsideInTeamA(forged));
            await().atMost(Duration.ofSeconds(10)).until(() -> !warnings(forged).isEmpty());
            List<Event> said = warnings(forged);
            assertEquals(1, said.size(), forged + ": " + said);
            assertEquals("UntrustedRecord", said.get(0).getReason(), said.get(0).getNote());
            assertTrue(said.get(0).getNote().contains("root.team-a"), said.get(0).getNote());
        }
        assertEquals(4000, scheduler.usage("root.team-a").get("cpu"), "both run: charged, each in team-a, which is full");
        assertEquals(2000, scheduler.usage("root.team-b").get("cpu"));
        new Cluster(client).clear();
    }

    /**
     * The same with a request far above team-a's max (100 cpu): charged in full in team-a, which admits nothing more,
     * but root counts team-a only up to team-a's max, so team-b is still admitted. Counted in full at root, it would
     * stop every team of the tree.
     */
    @Test
    void aHandWrittenRecordWithAHugeRequestStopsOnlyTheTenantsOwnGroup() {
        if (client.resources(io.kubequeue.quota.elastic.ElasticQuotaTree.class).inNamespace("kube-system").list()
                .getItems().isEmpty()) { // the other test clears the cluster when it ends
            new Cluster(client).apply("/quota/two-teams.yaml");
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.tree().node("root.team-b").isPresent());
        client.batch().v1().jobs().inNamespace("team-a").resource(job("team-a", "huge", false, "100", ROOT_RECORD))
                .create();
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.status(new JobKey("Job", "team-a", "huge"))
                .map(s -> "root.team-a".equals(s.group()) && s.record().startedOutside()).orElse(false));
        client.batch().v1().jobs().inNamespace("team-a").resource(job("team-a", "same-team-2", true, "1", Map.of()))
                .create();
        client.batch().v1().jobs().inNamespace("team-b").resource(job("team-b", "other-team-2", true, "3", Map.of()))
                .create();

        await().atMost(Duration.ofSeconds(15)).until(() -> !Boolean.TRUE.equals(get("team-b", "other-team-2")
                .getSpec().getSuspend()));
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3)).until(() -> Boolean.TRUE.equals(
                get("team-a", "same-team-2").getSpec().getSuspend()));
        assertEquals(100_000, scheduler.usage("root.team-a").get("cpu"), "charged in full where it runs");
        for (String[] job : new String[][] {{"team-a", "huge"}, {"team-a", "same-team-2"}, {"team-b", "other-team-2"}}) {
            client.batch().v1().jobs().inNamespace(job[0]).withName(job[1]).delete();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.status(new JobKey("Job", "team-a", "huge")).isEmpty());
    }
}
