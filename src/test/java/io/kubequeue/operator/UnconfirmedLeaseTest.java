package io.kubequeue.operator;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.Map;
import java.util.function.Consumer;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.kubequeue.testing.ManagementPort;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubequeue.scheduler.Scheduler;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.kubequeue.testing.WithStrictApiServer;
import io.kubequeue.testing.Cluster;

/**
 * The Lease still names this replica (from before a renewal failed, or a restart under the same name), but no
 * write to it gets through. fabric8 reports "leading" as soon as it reads its own name there, before any write;
 * this replica must not admit on that alone, since another replica may take the expired Lease any moment. It
 * leads only once its own write to the Lease, made after it was told it leads, is seen.
 */
@QuarkusTest
@TestProfile(UnconfirmedLeaseTest.NamedReplica.class)
@WithStrictApiServer(setup = UnconfirmedLeaseTest.LeaseNamesUsButWritesFail.class)
class UnconfirmedLeaseTest {

    private static final String IDENTITY = "replica-under-test";
    private static final String LEASE_PATH = "/apis/coordination.k8s.io/v1/namespaces/kube-queue/leases/kube-queue-leader";

    public static class NamedReplica implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("kube-queue.leader-election.identity", IDENTITY,
                    "kube-queue.leader-election.retry-period", "300ms",
                    "kube-queue.leader-election.renew-deadline", "2s",
                    "kube-queue.leader-election.lease-duration", "3s");
        }
    }

    public static class LeaseNamesUsButWritesFail implements Consumer<KubernetesMockServer> {
        @Override
        public void accept(KubernetesMockServer server) {
            KubernetesClient client = server.createClient();
            client.leases().inNamespace("kube-queue").resource(new LeaseBuilder().withNewMetadata()
                    .withName("kube-queue-leader").withNamespace("kube-queue").endMetadata().withNewSpec()
                    .withHolderIdentity(IDENTITY).withLeaseDurationSeconds(600)
                    .withAcquireTime(ZonedDateTime.now()).withRenewTime(ZonedDateTime.now()).withLeaseTransitions(0)
                    .endSpec().build()).create();
            String forbidden = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"code\":403,\"reason\":\"Forbidden\"}";
            server.expect().put().withPath(LEASE_PATH).andReturn(403, forbidden).always();
            server.expect().patch().withPath(LEASE_PATH).andReturn(403, forbidden).always();
            new Cluster(client).apply("/seed/elasticquotatree.yaml");
        }
    }

    @Inject
    KubernetesClient client;

    @Inject
    Scheduler scheduler;

    @Test
    void aLeaseThatOnlyNamesThisReplicaIsNotLeadership() {
        Cluster cluster = new Cluster(client);
        cluster.submitJob("waits", "1", Map.of(), null);
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.pending("root.defaultQuotaGroup").size() == 1);
        await().during(Duration.ofSeconds(4)).atMost(Duration.ofSeconds(5)).until(() -> !cluster.admitted("waits"));
        assertTrue(ManagementPort.given().get("/q/metrics").asString().contains("kube_queue_replica{replica_role=\"follower\"} 1.0"));
    }
}
