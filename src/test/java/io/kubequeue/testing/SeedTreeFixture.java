package io.kubequeue.testing;

import static org.awaitility.Awaitility.await;

import java.time.Duration;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubequeue.scheduler.Scheduler;

/**
 * The shared fixture of the seed-tree scenario tests (operator and read API), for a {@code @QuarkusTest}: the seed's ElasticQuotaTree (namespace {@code default} may use 4 cpu, group
 * {@value #SEED_GROUP}) is in force before each test, and every job and quota object is removed after it.
 */
public abstract class SeedTreeFixture {

    /** The seed tree's group for namespace {@code default}. */
    public static final String SEED_GROUP = "root.defaultQuotaGroup";

    @Inject
    protected KubernetesClient client;

    @Inject
    protected Scheduler scheduler;

    protected Cluster cluster;

    @BeforeEach
    protected void applySeedTree() {
        cluster = new Cluster(client);
        cluster.apply("/seed/elasticquotatree.yaml");
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.tree().node(SEED_GROUP).isPresent());
    }

    /** Removes every object and waits until the scheduler has let go of every job, so tests cannot see each other. */
    @AfterEach
    protected void clear() {
        cluster.clear();
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.jobs().isEmpty());
    }
}
