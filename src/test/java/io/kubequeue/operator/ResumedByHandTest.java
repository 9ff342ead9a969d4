package io.kubequeue.operator;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubequeue.job.Annotations;
import io.kubequeue.scheduler.Scheduler;
import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.testing.Cluster;
import io.kubequeue.testing.WithStrictApiServer;
import io.quarkus.test.junit.QuarkusTest;

/**
 * Issue 25 review, end to end: the signed record kube-queue wrote on an admission stays on the job when its user
 * suspends it again. The user then asks for 100 cpu (parallelism raised) and removes the mark by hand: the record
 * still verifies, but it is spent. This start is kube-queue's no more than any mark removed by hand, so the job is
 * charged as started outside in team-a, gets kube-queue's started-outside record (which a restart reads the same way)
 * and counts at root only up to team-a's max: team-b still admits. Read as kube-queue's admission under the old
 * record, its 100 cpu counted in full at root, and root admitted nothing for anyone.
 */
@QuarkusTest
@WithStrictApiServer
class ResumedByHandTest {

    @Inject
    KubernetesClient client;

    @Inject
    Scheduler scheduler;

    private Job get(String namespace, String name) {
        return client.batch().v1().jobs().inNamespace(namespace).withName(name).get();
    }

    private static Job job(String namespace, String name, String cpu, int completions) {
        return new JobBuilder().withNewMetadata().withName(name).withNamespace(namespace).endMetadata().withNewSpec()
                .withSuspend(true).withCompletions(completions).withParallelism(1).withNewTemplate().withNewSpec()
                .withRestartPolicy("Never").addNewContainer().withName("work").withImage("busybox:stable")
                .withNewResources().addToRequests("cpu", new io.fabric8.kubernetes.api.model.Quantity(cpu))
                .endResources().endContainer().endSpec().endTemplate().endSpec().build();
    }

    @Test
    void aJobResumedByHandUnderItsSpentRecordStopsOnlyItsOwnTeam() {
        Cluster cluster = new Cluster(client);
        cluster.apply("/quota/two-teams.yaml");
        JobKey key = new JobKey("Job", "team-a", "grows");
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.tree().node("root.team-b").isPresent());
        client.batch().v1().jobs().inNamespace("team-a").resource(job("team-a", "grows", "1", 100)).create();
        await().atMost(Duration.ofSeconds(15)).until(() -> !Boolean.TRUE.equals(get("team-a", "grows").getSpec()
                .getSuspend()));
        String admittedAt = get("team-a", "grows").getMetadata().getAnnotations().get(Annotations.ADMITTED_AT);
        assertTrue(admittedAt != null && !admittedAt.equals(AdmissionRecord.STARTED_OUTSIDE), admittedAt);

        // its user suspends it again, asking for 100 cpu (it never fits team-a's 4): it queues again
        client.batch().v1().jobs().inNamespace("team-a").withName("grows").edit(j -> new JobBuilder(j).editSpec()
                .withSuspend(true).withParallelism(100).endSpec().build());
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.status(key)
                .map(s -> s.state() != JobState.ADMITTED).orElse(false));
        // and starts it by hand: kube-queue's signed record is on it, unchanged
        client.batch().v1().jobs().inNamespace("team-a").withName("grows").edit(j -> new JobBuilder(j).editSpec()
                .withSuspend(false).endSpec().build());
        assertEquals(admittedAt, get("team-a", "grows").getMetadata().getAnnotations().get(Annotations.ADMITTED_AT));
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.status(key)
                .map(s -> s.state() == JobState.ADMITTED).orElse(false));

        assertTrue(scheduler.status(key).orElseThrow().record().startedOutside(),
                "not admitted by kube-queue: " + scheduler.status(key).orElseThrow().record());
        await().atMost(Duration.ofSeconds(10)).until(() -> AdmissionRecord.STARTED_OUTSIDE.equals(
                get("team-a", "grows").getMetadata().getAnnotations().get(Annotations.ADMITTED_AT)));
        client.batch().v1().jobs().inNamespace("team-b").resource(job("team-b", "other-team", "3", 1)).create();
        await().atMost(Duration.ofSeconds(15)).until(() -> !Boolean.TRUE.equals(get("team-b", "other-team")
                .getSpec().getSuspend()));
        assertEquals(100_000, scheduler.usage("root.team-a").get("cpu"), "charged in full where it runs");
        cluster.clear();
    }
}
