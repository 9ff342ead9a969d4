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

    private static final String NOT_FOUND = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
            + "\"reason\":\"NotFound\",\"code\":404,\"message\":\"the server could not find the requested resource\"}";

    @Test
    void readyAndAdmittingAlthoughOneVersionIsNotServed() {
        KubernetesMockServer api = PackagedOperator.mockApiServer();
        api.expect().get().withPath("/apis/kubeflow.org/v1/mpijobs").andReturn(404, NOT_FOUND).always();
        api.expect().get().withPath("/apis/kubeflow.org/v1/mpijobs?resourceVersion=0").andReturn(404, NOT_FOUND).always();
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
        } finally {
            api.destroy();
        }
    }
}
