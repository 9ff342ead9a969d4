package io.kubequeue.operator;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;

/** The seed's ElasticQuotaTree example: default may use 4 cpu, each TFJob needs 3. */
@QuarkusTest
@WithKubernetesTestServer(crud = true)
class ElasticQuotaTreeSeedTest {

    @Inject
    KubernetesClient client;

    Cluster cluster;

    @BeforeEach
    void setUp() {
        cluster = new Cluster(client);
    }

    @AfterEach
    void tearDown() {
        cluster.clear();
    }

    @Test
    void job1IsAdmittedJob2WaitsUntilJob1HasSucceeded() {
        cluster.apply("/seed/elasticquotatree.yaml");
        cluster.apply("/seed/tfjobs.yaml");

        await().atMost(Duration.ofSeconds(10)).until(() -> !Cluster.suspended(cluster.tfJob("job1")));
        assertEquals("root.defaultQuotaGroup", Cluster.admittedGroup(cluster.tfJob("job1")));
        // job2 stays queued for as long as job1 runs
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3))
                .until(() -> Cluster.suspended(cluster.tfJob("job2")));

        cluster.succeed("job1");
        await().atMost(Duration.ofSeconds(10)).until(() -> !Cluster.suspended(cluster.tfJob("job2")));
        assertEquals("root.defaultQuotaGroup", Cluster.admittedGroup(cluster.tfJob("job2")));
        assertFalse(cluster.events("default", "job1").isEmpty(), "an Admitted event is written");
        assertTrue(cluster.events("default", "job1").stream().anyMatch(e -> "Admitted".equals(e.getReason())));
    }
}
