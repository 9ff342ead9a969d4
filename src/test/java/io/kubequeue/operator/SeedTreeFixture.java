package io.kubequeue.operator;

import static org.awaitility.Awaitility.await;

import java.time.Duration;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubequeue.scheduler.Scheduler;

/**
 * For a {@code @QuarkusTest}: the seed's ElasticQuotaTree (namespace {@code default} may use 4 cpu, group
 * {@value #SEED_GROUP}) is in force before each test, and every job and quota object is removed after it.
 */
abstract class SeedTreeFixture {

    /** The seed tree's group for namespace {@code default}. */
    static final String SEED_GROUP = "root.defaultQuotaGroup";

    @Inject
    KubernetesClient client;

    @Inject
    Scheduler scheduler;

    Cluster cluster;

    @BeforeEach
    void applySeedTree() {
        cluster = new Cluster(client);
        cluster.apply("/seed/elasticquotatree.yaml");
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.tree().node(SEED_GROUP).isPresent());
    }

    @AfterEach
    void clear() {
        cluster.clear();
    }
}
