package io.kubequeue.packaged;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.kubequeue.testing.Cluster;

/**
 * A cluster serves one of the two MPIJob versions, never both: the other answers 404 for good. Readiness and
 * admissions must not wait for that kind's informer, which JOSDK keeps retrying (issue: every start was Ready only
 * after JOSDK's informer-start timeout). The timeout is set to ten minutes here, so a replica that waited for it
 * could not pass.
 */
class UnservedKindIT {

    @Test
    void readyAndAdmittingAlthoughOneVersionIsNotServed() {
        KubernetesMockServer api = PackagedOperator.mockApiServer();
        // every request for it, whatever its query: recovery lists with ?limit=, the informer with ?resourceVersion=0
        io.kubequeue.testing.StrictApiServer.unserved(api, "kubeflow.org", "v1", "mpijobs");
        try (KubernetesClient client = api.createClient();
             PackagedOperator replica = PackagedOperator.start("kube-queue-one-mpijob-version",
                     client.getConfiguration().getMasterUrl(),
                     Map.of("QUARKUS_OPERATOR_SDK_CACHE_SYNC_TIMEOUT", "10m"))) {
            await("ready and leading while the MPIJob v1 informer cannot start").atMost(Duration.ofSeconds(60))
                    .until(() -> {
                        if (!replica.alive()) {
                            throw new AssertionError("the replica exited: " + replica.log());
                        }
                        return replica.ready() && replica.leads();
                    });
            Cluster cluster = new Cluster(client);
            cluster.apply("/seed/elasticquotatree.yaml");
            cluster.submitJob("runs", "1", Map.of(), null);
            await("the batch Job admitted").atMost(Duration.ofSeconds(30)).until(() -> cluster.admitted("runs"));
            // issue 29, item 5: the kind not served is one line that says so, never a stack trace at every start
            String log = replica.log();
            java.util.List<String> traces = log.lines().filter(l -> l.startsWith("\tat ") || l.startsWith("Caused by:"))
                    .toList();
            org.junit.jupiter.api.Assertions.assertEquals(java.util.List.of(), traces, log);
            org.junit.jupiter.api.Assertions.assertTrue(log.lines().anyMatch(l -> l.contains("MPIJob")
                    && l.contains("kubeflow.org/v1") && l.contains("not served")), log);
        } finally {
            api.destroy();
        }
    }

    /**
     * Issue 29, item 5: past JOSDK's cache-sync timeout (15 s shipped, 2 s here) the informer of the kind not served
     * has not synced; that is said in one line, not with a stack trace at every start.
     */
    @Test
    void theKindNotServedIsOneLinePastTheCacheSyncTimeout() throws InterruptedException {
        KubernetesMockServer api = PackagedOperator.mockApiServer();
        io.kubequeue.testing.StrictApiServer.unserved(api, "kubeflow.org", "v1", "mpijobs");
        try (KubernetesClient client = api.createClient();
             PackagedOperator replica = PackagedOperator.start("kube-queue-sync-timeout",
                     client.getConfiguration().getMasterUrl(),
                     Map.of("QUARKUS_OPERATOR_SDK_CACHE_SYNC_TIMEOUT", "2s"))) {
            await("ready").atMost(Duration.ofSeconds(60)).until(() -> {
                if (!replica.alive()) {
                    throw new AssertionError("the replica exited: " + replica.log());
                }
                return replica.ready();
            });
            Thread.sleep(6000); // past the timeout, and a retry or two of the informer
            String log = replica.log();
            org.junit.jupiter.api.Assertions.assertTrue(log.lines().anyMatch(l -> l.contains("Informer startup error")
                    && l.contains("kubeflow.org/v1/mpijobs")), "the line stays: " + log);
            org.junit.jupiter.api.Assertions.assertTrue(log.lines().noneMatch(l -> l.contains("already registered")),
                    "no meter registered twice at start: " + log);
            java.util.List<String> traces = log.lines().filter(l -> l.startsWith("\tat ") || l.startsWith("Caused by:"))
                    .toList();
            org.junit.jupiter.api.Assertions.assertEquals(java.util.List.of(), traces, log);
        } finally {
            api.destroy();
        }
    }
}
