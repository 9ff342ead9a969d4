package io.kubequeue.operator;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.kubequeue.testing.ManagementPort;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.kubequeue.testing.WithStrictApiServer;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.kubernetes.client.KubernetesTestServer;
import io.kubequeue.testing.Cluster;

/**
 * Run outside a cluster on a cluster without the Lease's namespace (issue: it logged a stack trace every few
 * seconds, reported Ready, and admitted nothing, ever): the replica says once, in one line, what is wrong and how
 * to fix it, is not Ready and admits nothing; once the namespace exists it leads and admits without a restart.
 */
@QuarkusTest
@TestProfile(LeaseNamespaceMissingTest.ShortRetryAndALogFile.class)
@WithStrictApiServer(setup = LeaseNamespaceMissingTest.NoLeaseNamespace.class)
class LeaseNamespaceMissingTest {

    /** One file per test JVM: the file handler appends, and target/ keeps the last run's. */
    private static final Path LOG = Path.of("target", "lease-namespace-missing-" + ProcessHandle.current().pid() + ".log");
    private static final String LEASES = "/apis/coordination.k8s.io/v1/namespaces/kube-queue/leases";

    public static class ShortRetryAndALogFile implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            Map<String, String> overrides = new HashMap<>(new LeaderElectionTest.ShortLease().getConfigOverrides());
            overrides.putAll(Map.of("quarkus.log.file.enabled", "true",
                    "quarkus.log.file.path", LOG.toString(),
                    "quarkus.log.file.filter", "kube-queue-repeated-failures"));
            return overrides;
        }
    }

    /** A real API server's answer to creating an object in a namespace that does not exist. */
    public static class NoLeaseNamespace implements Consumer<KubernetesMockServer> {
        @Override
        public void accept(KubernetesMockServer server) {
            server.expect().post().withPath(LEASES).andReturn(404, "{\"kind\":\"Status\",\"apiVersion\":\"v1\","
                    + "\"status\":\"Failure\",\"message\":\"namespaces \\\"kube-queue\\\" not found\","
                    + "\"reason\":\"NotFound\",\"details\":{\"name\":\"kube-queue\",\"kind\":\"namespaces\"},"
                    + "\"code\":404}").always();
        }
    }

    @KubernetesTestServer
    KubernetesMockServer server;

    @Inject
    KubernetesClient client;

    @Test
    void saysOnceWhatIsWrongIsNotReadyAndLeadsOnceTheNamespaceExists() throws IOException {
        Cluster cluster = new Cluster(client);
        cluster.apply("/seed/elasticquotatree.yaml");
        cluster.submitJob("waits", "1", Map.of(), null);

        await().atMost(Duration.ofSeconds(10)).until(() -> ManagementPort.given().get("/q/health/ready").statusCode() == 503);
        String readiness = ManagementPort.given().get("/q/health/ready").asString();
        assertTrue(readiness.contains("namespace \\\"kube-queue\\\" of the Lease kube-queue/kube-queue-leader does"
                + " not exist") && readiness.contains("KUBE_QUEUE_LEADER_ELECTION_ENABLED=false"), readiness);
        // many retries later: still one line, no stack trace from fabric8, nothing admitted
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3))
                .until(() -> ManagementPort.given().get("/q/health/ready").statusCode() == 503);
        assertFalse(cluster.admitted("waits"));
        List<String> lines = Files.readAllLines(LOG);
        List<String> said = lines.stream().filter(l -> l.contains("ERROR") && l.contains("leader election cannot run"))
                .toList();
        assertEquals(1, said.size(), String.join("\n", lines));
        assertTrue(said.get(0).contains("kubectl create namespace kube-queue"), said.get(0));
        assertFalse(lines.stream().anyMatch(l -> l.contains("Exception occurred while acquiring lock")),
                "fabric8's retry warning is not repeated");

        server.clearExpectations(); // the namespace is created
        await().atMost(Duration.ofSeconds(15)).until(() -> ManagementPort.given().get("/q/health/ready").statusCode() == 200);
        await().atMost(Duration.ofSeconds(10)).until(() -> cluster.admitted("waits"));
        assertTrue(Files.readString(LOG).contains("leader election runs: the Lease is written"));
    }
}
