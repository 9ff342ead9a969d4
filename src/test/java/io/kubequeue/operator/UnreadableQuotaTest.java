package io.kubequeue.operator;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import java.util.function.Consumer;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.kubequeue.testing.WithStrictApiServer;
import io.kubequeue.testing.Cluster;

/**
 * Under the ResourceQuota plugin a namespace without quota is unlimited; so when the ResourceQuotas cannot
 * be read at all, kube-queue must not take "none seen" for "none exist": it holds every job instead.
 */
@QuarkusTest
@TestProfile(UnreadableQuotaTest.ResourceQuotaPluginQuickTimeout.class)
@WithStrictApiServer(setup = UnreadableQuotaTest.QuotasRefused.class)
class UnreadableQuotaTest {

    public static class ResourceQuotaPluginQuickTimeout implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("QueueGroupPlugin", "resourcequota", "kube-queue.first-list-timeout", "1s",
                    "quarkus.kubernetes-client.request-retry-backoff-limit", "0");
        }
    }

    /** Every list of ResourceQuotas answers 403, as with RBAC missing. */
    public static class QuotasRefused implements Consumer<KubernetesMockServer> {
        @Override
        public void accept(KubernetesMockServer server) {
            server.expect().get().withPath("/api/v1/resourcequotas?resourceVersion=0")
                    .andReturn(403, "{\"kind\":\"Status\",\"code\":403,\"reason\":\"Forbidden\"}").always();
        }
    }

    @Inject
    KubernetesClient client;

    @Test
    void everyJobIsHeldWithAnEventSayingWhy() {
        Cluster cluster = new Cluster(client);
        cluster.apply("/seed/tfjobs-resourcequota.yaml");
        await().atMost(Duration.ofSeconds(10)).until(() -> cluster.events("default", "job1").stream()
                .anyMatch(e -> "NoQuotaGroup".equals(e.getReason())));
        Event hold = cluster.events("default", "job1").stream().filter(e -> "NoQuotaGroup".equals(e.getReason()))
                .findFirst().orElseThrow();
        assertTrue(hold.getNote().startsWith("no quota groups are in force yet"), hold.getNote());
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3))
                .until(() -> Cluster.suspended(cluster.tfJob("job1")) && Cluster.suspended(cluster.tfJob("job2")));
        cluster.clear();
    }
}
