package io.kubequeue.operator;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.kubequeue.job.Annotations;
import io.quarkus.test.junit.QuarkusTest;
import io.kubequeue.testing.WithStrictApiServer;
import io.kubequeue.testing.Cluster;

/** ElasticQuotaTree min for non-preemptible jobs, and {@code kube-queue/max-jobs}, end to end. */
@QuarkusTest
@WithStrictApiServer
class QuotaSemanticsTest extends PolicyScenario {

    private static final Map<String, String> NON_PREEMPTIBLE = Map.of("quota.scheduling.alibabacloud.com/preemptible", "false");

    @Override
    @BeforeEach
    protected void applySeedTree() { // each test applies its own tree
        cluster = new Cluster(client);
    }

    @Test
    void nonPreemptibleJobsAreAdmittedOnlyWithinMinPreemptibleOnesUpToMax() {
        cluster.apply("/quota/min-max.yaml");
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.tree().node("root.team").isPresent());
        cluster.submitJob("a-guaranteed", "2", NON_PREEMPTIBLE, null);
        admittedWithin("a-guaranteed", 10);
        cluster.submitJob("b-guaranteed", "1", NON_PREEMPTIBLE, null);
        cluster.submitJob("c-preemptible", "3", Map.of(), null);
        admittedWithin("c-preemptible", 10);
        staysSuspended("b-guaranteed", 2); // max has 1 cpu left, min (2) is used up

        cluster.complete("a-guaranteed");
        admittedWithin("b-guaranteed", 10);
    }

    /** The seed's tree (4 cpu): a-first (3) runs, b-second (3) waits. */
    private void firstRunsSecondWaits() {
        super.applySeedTree();
        cluster.submitJob("a-first", "3", Map.of(), null);
        admittedWithin("a-first", 10);
        cluster.submitJob("b-second", "3", Map.of(), null);
        staysSuspended("b-second", 1);
    }

    @Test
    void aJobSuspendedAgainReleasesItsQuotaAndQueuesAgain() {
        firstRunsSecondWaits();

        String firstAdmission = cluster.job("a-first").getMetadata().getAnnotations().get(Annotations.ADMITTED_AT);
        client.batch().v1().jobs().inNamespace("default").withName("a-first")
                .edit(j -> { j.getSpec().setSuspend(true); return j; }); // suspended again, e.g. by its owner
        // its quota is released and it queues again at its old place, ahead of b-second: admitted anew
        await().atMost(Duration.ofSeconds(10)).until(() -> cluster.admitted("a-first")
                && !firstAdmission.equals(cluster.job("a-first").getMetadata().getAnnotations().get(Annotations.ADMITTED_AT)));
        assertEquals(3000, scheduler.usage("root.defaultQuotaGroup").get("cpu"), "charged once, not twice");
        staysSuspended("b-second", 1);
    }

    @Test
    void aQueuedJobStartedByHandIsChargedAndTheChargeIsWrittenOnItForARestart() {
        firstRunsSecondWaits();

        client.batch().v1().jobs().inNamespace("default").withName("b-second")
                .edit(j -> { j.getSpec().setSuspend(false); return j; }); // past the queue
        await().atMost(Duration.ofSeconds(10)).until(() -> "root.defaultQuotaGroup".equals(
                Cluster.admittedGroup(cluster.job("b-second"))));
        assertEquals(6000, scheduler.usage("root.defaultQuotaGroup").get("cpu"), "both run: both are charged");
        await().atMost(Duration.ofSeconds(5)).until(() -> cluster.events("default", "b-second").stream()
                .anyMatch(e -> "StartedOutsideQueue".equals(e.getReason()) && "Warning".equals(e.getType())));
    }

    @Test
    void maxJobsCapsHowManyJobsRunAtOnce() {
        cluster.apply("/quota/one-at-a-time.yaml");
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.tree().node("root.oneAtATime").isPresent());
        cluster.submitJob("a-first", "1", Map.of(), null);
        admittedWithin("a-first", 10);
        cluster.submitJob("b-second", "1", Map.of(), null);
        staysSuspended("b-second", 2);
        cluster.complete("a-first");
        admittedWithin("b-second", 10);
    }
}
