package io.kubequeue.leader;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.kubequeue.api.ReadApiForwarding;
import io.kubequeue.testing.WithStrictApiServer;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.kubernetes.client.KubernetesTestServer;

/**
 * A replica that leads publishes its read API address on its Lease once per term, and fabric8's renewals (a JSON
 * merge patch of name, namespace, resourceVersion and spec) leave it there: one extra write per term, none per
 * renewal. The leader answers its read API itself and says so ({@code X-Kube-Queue-Answered-By}).
 */
@QuarkusTest
@TestProfile(ReadApiLeaderPublishTest.Advertised.class)
@WithStrictApiServer
class ReadApiLeaderPublishTest {

    private static final String IDENTITY = "replica-that-leads";
    private static final String URL = "http://10.1.2.3:8080";
    private static final String LEASE_PATH = "/apis/coordination.k8s.io/v1/namespaces/kube-queue/leases/kube-queue-leader";

    public static class Advertised implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("kube-queue.leader-election.identity", IDENTITY,
                    "kube-queue.leader-election.retry-period", "300ms",
                    "kube-queue.leader-election.renew-deadline", "2s",
                    "kube-queue.leader-election.lease-duration", "3s",
                    "kube-queue.read-api.advertised-url", URL + "/");
        }
    }

    @Inject
    KubernetesClient client;

    @Inject
    Leadership leadership;

    @Inject
    ReadApiLeaderAddress address;

    @KubernetesTestServer
    KubernetesMockServer server;

    @Test
    void theAddressIsWrittenOncePerTermAndRenewalsKeepIt() throws InterruptedException {
        await().atMost(Duration.ofSeconds(20)).until(() -> leadership.isLeader() && lease().getMetadata()
                .getAnnotations() != null && lease().getMetadata().getAnnotations().containsKey(ReadApiLeaderAddress.URL));
        leasePatches();
        patches = 0; // from here on
        Lease published = lease();
        assertEquals(Map.of(ReadApiLeaderAddress.HOLDER, IDENTITY, ReadApiLeaderAddress.URL, URL),
                published.getMetadata().getAnnotations(), "the setting without its trailing slash");

        // several renewals later (one every 300 ms here) the annotations are as written
        await().atMost(Duration.ofSeconds(10)).until(() -> leasePatches() >= 5);
        Lease renewed = lease();
        assertNotEquals(published.getSpec().getRenewTime(), renewed.getSpec().getRenewTime());
        assertEquals(published.getMetadata().getAnnotations(), renewed.getMetadata().getAnnotations());
        assertEquals(1, address.addressWrites(), "one write of the address in this term, whatever the renewals");

        given().when().get("/api/v1/queues").then().statusCode(200).header(ReadApiForwarding.ANSWERED_BY, IDENTITY);
    }

    private int patches;

    /** The PATCHes of the Lease recorded since the last call, added up: fabric8's renewals and the address's write. */
    private int leasePatches() throws InterruptedException {
        for (var request = server.takeRequest(10, TimeUnit.MILLISECONDS); request != null;
             request = server.takeRequest(10, TimeUnit.MILLISECONDS)) {
            if (request.getPath().split("\\?")[0].equals(LEASE_PATH) && request.getMethod().equals("PATCH")) {
                patches++;
            }
        }
        return patches;
    }

    private Lease lease() {
        return client.leases().inNamespace("kube-queue").withName("kube-queue-leader").get();
    }
}
