package io.kubequeue.operator;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubequeue.job.kubeflow.TFJob;
import io.kubequeue.quota.elastic.ElasticQuotaTree;
import io.kubequeue.scheduler.Scheduler;
import io.quarkus.test.junit.QuarkusTest;
import io.kubequeue.testing.WithStrictApiServer;
import io.kubequeue.testing.Cluster;

/** The seed's ElasticQuotaTree example: default may use 4 cpu, each TFJob needs 3. */
@QuarkusTest
@WithStrictApiServer
class ElasticQuotaTreeSeedTest {

    @Inject
    KubernetesClient client;

    @Inject
    Scheduler scheduler;

    Cluster cluster;

    @BeforeEach
    void setUp() {
        cluster = new Cluster(client);
    }

    @AfterEach
    void tearDown() {
        cluster.clear();
    }

    @Test
    void oneSeedJobIsAdmittedTheOtherWaitsUntilItHasSucceeded() {
        cluster.apply("/seed/elasticquotatree.yaml");
        cluster.apply("/seed/tfjobs.yaml");

        String running = cluster.awaitOneSeedJobAdmitted();
        String queued = Cluster.other(running);
        assertEquals("root.defaultQuotaGroup", Cluster.admittedGroup(cluster.tfJob(running)));
        // the other stays queued for as long as the first runs
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3))
                .until(() -> Cluster.suspended(cluster.tfJob(queued)));

        // kubectl get tfjob shows the last condition: a queued TFJob shows Queuing, as in the seed
        await().atMost(Duration.ofSeconds(5)).until(() -> "True".equals(queuing(cluster.tfJob(queued))));

        cluster.succeed(running);
        await().atMost(Duration.ofSeconds(10)).until(() -> !Cluster.suspended(cluster.tfJob(queued)));
        assertEquals("root.defaultQuotaGroup", Cluster.admittedGroup(cluster.tfJob(queued)));
        await().atMost(Duration.ofSeconds(5)).until(() -> "False".equals(queuing(cluster.tfJob(queued))));
        assertFalse(cluster.events("default", running).isEmpty(), "an Admitted event is written");
        assertTrue(cluster.events("default", running).stream().anyMatch(e -> "Admitted".equals(e.getReason())));
    }

    @Test
    void deletingAnAdmittedJobReleasesItsQuota() {
        cluster.apply("/seed/elasticquotatree.yaml");
        cluster.apply("/seed/tfjobs.yaml");
        String running = cluster.awaitOneSeedJobAdmitted();

        client.resources(TFJob.class).inNamespace("default").withName(running).delete();
        await().atMost(Duration.ofSeconds(10)).until(() -> !Cluster.suspended(cluster.tfJob(Cluster.other(running))));
    }

    @Test
    void threeBatchJobsOfTwoCpuTwoAdmittedTheThirdAfterOneCompletes() {
        cluster.apply("/seed/elasticquotatree.yaml");
        cluster.apply("/jobs/batch-2cpu.yaml");

        await().atMost(Duration.ofSeconds(10)).until(() -> admittedBatchJobs().size() == 2);
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3)).until(() -> admittedBatchJobs().size() == 2);
        List<String> firstTwo = admittedBatchJobs();
        for (String name : firstTwo) {
            assertEquals(Boolean.FALSE, cluster.job(name).getSpec().getSuspend());
        }

        cluster.complete(firstTwo.get(0));
        await().atMost(Duration.ofSeconds(10)).until(() -> admittedBatchJobs().size() == 3);
    }

    @Test
    void aJobInANamespaceOfNoGroupStaysSuspendedWithAWarningEvent() {
        cluster.apply("/seed/elasticquotatree.yaml");
        cluster.apply("/jobs/orphan.yaml");

        await().atMost(Duration.ofSeconds(10)).until(() -> cluster.events("orphans", "orphan").stream()
                .anyMatch(e -> "Warning".equals(e.getType()) && "NoQuotaGroup".equals(e.getReason())));
        Event warning = cluster.events("orphans", "orphan").stream()
                .filter(e -> "NoQuotaGroup".equals(e.getReason())).findFirst().orElseThrow();
        assertTrue(warning.getNote().contains("namespace orphans belongs to no quota group"), warning.getNote());
        Job orphan = client.batch().v1().jobs().inNamespace("orphans").withName("orphan").get();
        assertTrue(Cluster.suspended(orphan));
        assertNull(Cluster.admittedGroup(orphan));
    }

    @Test
    void aJobWithAnUnparsableQuantityStaysSuspendedWithOneWarningNamingTheField() {
        cluster.apply("/seed/elasticquotatree.yaml");
        cluster.apply("/jobs/invalid-quantity.yaml");
        await().atMost(Duration.ofSeconds(10)).until(() -> cluster.events("default", "bad-cpu").stream()
                .anyMatch(e -> "InvalidJob".equals(e.getReason())));
        // more events on the job (a label change) must not repeat the same warning
        client.batch().v1().jobs().inNamespace("default").withName("bad-cpu")
                .edit(j -> { j.getMetadata().setLabels(java.util.Map.of("touched", "1")); return j; });
        client.batch().v1().jobs().inNamespace("default").withName("bad-cpu")
                .edit(j -> { j.getMetadata().setLabels(java.util.Map.of("touched", "2")); return j; });
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(2))
                .until(() -> Cluster.suspended(cluster.job("bad-cpu")));
        List<Event> warnings = cluster.events("default", "bad-cpu").stream()
                .filter(e -> "InvalidJob".equals(e.getReason())).toList();
        assertEquals(1, warnings.size());
        assertTrue(warnings.get(0).getNote().startsWith("spec.template.spec.containers[0].resources.requests.cpu:"),
                warnings.get(0).getNote());
        assertEquals("Warning", warnings.get(0).getType());
    }

    @Test
    void anInvalidTreeGetsAWarningAndTheLastValidTreeStaysInForce() {
        cluster.apply("/seed/elasticquotatree.yaml");
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.tree().node("root.defaultQuotaGroup").isPresent());
        client.resources(ElasticQuotaTree.class).inNamespace("kube-system").withName("elasticquotatree").edit(t -> {
            t.getSpec().getRoot().getChildren().get(0).getMin().put("cpu", new Quantity("8")); // above max 4
            return t;
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> cluster.events("kube-system", "elasticquotatree").stream()
                .anyMatch(e -> "InvalidQuotaTree".equals(e.getReason())));
        Event warning = cluster.events("kube-system", "elasticquotatree").get(0);
        assertTrue(warning.getNote().contains("min cpu 8 is above max 4")
                && warning.getNote().endsWith("the last valid tree stays in force"), warning.getNote());

        cluster.apply("/seed/tfjobs.yaml");
        String running = cluster.awaitOneSeedJobAdmitted();
        assertEquals("root.defaultQuotaGroup", Cluster.admittedGroup(cluster.tfJob(running)));
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3))
                .until(() -> Cluster.suspended(cluster.tfJob(Cluster.other(running))));
    }

    private static String queuing(TFJob job) {
        return io.kubequeue.job.kubeflow.KubeflowJobKind.queuingCondition(job);
    }

    /** Names of the batch Jobs in default that kube-queue has admitted (suspend false, record present). */
    private List<String> admittedBatchJobs() {
        return client.batch().v1().jobs().inNamespace("default").list().getItems().stream()
                .filter(j -> !Cluster.suspended(j) && Cluster.admittedGroup(j) != null)
                .map(j -> j.getMetadata().getName()).sorted().toList();
    }
}
