package io.kubequeue.operator;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import java.util.function.Consumer;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.kubequeue.testing.Cluster;
import io.kubequeue.testing.ManagementPort;
import io.kubequeue.testing.WithStrictApiServer;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.KubernetesTestServer;

/**
 * RBAC does not let kube-queue read or create its record key's Secret (an install without Role
 * kube-queue-controller-record-key): it does not crash-loop. Start-up returns, so health is served; the replica is not
 * ready and says why and what to grant, admits nothing, and once the Secret may be read it recovers and admits
 * without a restart (a job submitted meanwhile included).
 */
@QuarkusTest
@WithStrictApiServer(setup = RecordKeyForbiddenTest.SecretForbidden.class)
class RecordKeyForbiddenTest {

    private static final String SECRETS = "/api/v1/namespaces/kube-queue/secrets";

    /** A real API server's answer to a ServiceAccount without rights on the Secret. */
    public static class SecretForbidden implements Consumer<KubernetesMockServer> {
        @Override
        public void accept(KubernetesMockServer server) {
            String forbidden = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"message\":\"secrets"
                    + " \\\"kube-queue-record-key\\\" is forbidden: User \\\"system:serviceaccount:kube-queue:"
                    + "kube-queue-controller\\\" cannot get resource \\\"secrets\\\" in API group \\\"\\\" in the"
                    + " namespace \\\"kube-queue\\\"\",\"reason\":\"Forbidden\",\"code\":403}";
            server.expect().get().withPath(SECRETS + "/kube-queue-record-key").andReturn(403, forbidden).always();
        }
    }

    @KubernetesTestServer
    KubernetesMockServer server;

    @Inject
    KubernetesClient client;

    @Test
    void notReadyWithTheReasonUntilTheSecretMayBeReadThenRecoversAndAdmits() {
        Cluster cluster = new Cluster(client);
        cluster.apply("/seed/elasticquotatree.yaml");
        cluster.submitJob("waits", "1", Map.of(), null);

        await().atMost(Duration.ofSeconds(10)).until(() -> ManagementPort.given().get("/q/health/ready").statusCode() == 503
                && ManagementPort.given().get("/q/health/ready").asString().contains("recordKey"));
        String readiness = ManagementPort.given().get("/q/health/ready").asString();
        assertTrue(readiness.contains("forbids this replica Secret kube-queue/kube-queue-record-key")
                && readiness.contains("Role kube-queue-controller-record-key"), readiness);
        assertFalse(cluster.admitted("waits"));

        server.clearExpectations(); // the Role is granted
        await().atMost(Duration.ofSeconds(15)).until(() -> ManagementPort.given().get("/q/health/ready").statusCode() == 200);
        await().atMost(Duration.ofSeconds(10)).until(() -> cluster.admitted("waits"));
        cluster.clear();
    }
}
