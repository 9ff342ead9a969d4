package io.kubequeue.operator;

import static org.awaitility.Awaitility.await;

import java.time.Duration;

import io.kubequeue.testing.WithStrictApiServer;
import io.quarkus.test.junit.QuarkusTest;

/** {@link PricingScenario} under the ElasticQuotaTree plugin: a tree whose group for namespace default has 2 cpu. */
@QuarkusTest
@WithStrictApiServer
class LimitRangePricingTest extends PricingScenario {

    @Override
    void twoCpuForNamespaceDefault() {
        cluster.apply("/quota/two-cpu-default.yaml");
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.tree().node("root.default").isPresent());
    }
}
