package io.kubequeue.operator;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubequeue.job.JobFeed;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.kubequeue.testing.WithStrictApiServer;
import io.kubequeue.testing.Cluster;

/**
 * {@code KUBE_QUEUE_DISABLED_KINDS="Workflow, Job"} (written as people write lists): batch Jobs and Workflows are left
 * alone (say, for another queue), TFJobs are queued.
 */
@QuarkusTest
@TestProfile(DisabledKindsTest.BatchJobsOff.class)
@WithStrictApiServer
class DisabledKindsTest {

    public static class BatchJobsOff implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("kube-queue.disabled-kinds", "Workflow, Job");
        }
    }

    @Inject
    KubernetesClient client;

    @Inject
    JobFeed feed;

    @Test
    void aDisabledKindIsNeitherQueuedNorAdmitted() {
        assertTrue(!feed.enabled("Job") && !feed.enabled("Workflow") && feed.enabled("TFJob"));
        Cluster cluster = new Cluster(client);
        cluster.apply("/seed/elasticquotatree.yaml");
        cluster.apply("/jobs/batch-2cpu.yaml");
        cluster.apply("/seed/tfjobs.yaml");
        cluster.awaitOneSeedJobAdmitted();
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3))
                .until(() -> Cluster.suspended(cluster.job("batch-a")));
        Job untouched = cluster.job("batch-a");
        assertNull(Cluster.admittedGroup(untouched));
        assertTrue(cluster.events("default", "batch-a").isEmpty(), "no event on a kind kube-queue leaves alone");
        cluster.clear();
    }
}
