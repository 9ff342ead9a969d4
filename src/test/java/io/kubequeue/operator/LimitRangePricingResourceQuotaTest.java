package io.kubequeue.operator;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Map;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceQuotaBuilder;
import io.kubequeue.testing.WithStrictApiServer;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/**
 * {@link PricingScenario} under the ResourceQuota plugin: namespace default's ResourceQuota has {@code requests.cpu: 2}
 * (the quota the API server's ResourceQuota plugin would refuse the extra pods under).
 */
@QuarkusTest
@TestProfile(ResourceQuotaSeedTest.ResourceQuotaPlugin.class)
@WithStrictApiServer
class LimitRangePricingResourceQuotaTest extends PricingScenario {

    @Override
    void twoCpuForNamespaceDefault() {
        cluster.create(new ResourceQuotaBuilder().withNewMetadata().withName("default").withNamespace("default")
                .endMetadata().withNewSpec().withHard(Map.of("requests.cpu", new Quantity("2"))).endSpec().build());
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.tree().node("default").isPresent()
                && scheduler.tree().node("default").get().max().has("cpu"));
    }
}
