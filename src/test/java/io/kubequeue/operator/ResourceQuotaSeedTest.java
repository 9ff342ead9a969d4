package io.kubequeue.operator;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.Map;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubequeue.scheduler.Scheduler;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;

/** The seed's ResourceQuota example: {@code QueueGroupPlugin=resourcequota}, namespace default has cpu 4. */
@QuarkusTest
@TestProfile(ResourceQuotaSeedTest.ResourceQuotaPlugin.class)
@WithKubernetesTestServer(crud = true)
class ResourceQuotaSeedTest {

    /** Sets the seed's env var name, as {@code kubectl edit deploy} would. */
    public static class ResourceQuotaPlugin implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("QueueGroupPlugin", "resourcequota");
        }
    }

    @Inject
    KubernetesClient client;

    @Inject
    Scheduler scheduler;

    @AfterEach
    void tearDown() {
        new Cluster(client).clear();
    }

    @Test
    void oneSeedJobIsAdmittedTheOtherWaitsUntilItHasSucceeded() {
        Cluster cluster = new Cluster(client);
        cluster.apply("/seed/resourcequota.yaml");
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.tree().node("default").isPresent()
                && scheduler.tree().node("default").get().max().has("cpu"));
        cluster.apply("/seed/tfjobs-resourcequota.yaml");

        String running = cluster.awaitOneSeedJobAdmitted();
        String queued = Cluster.other(running);
        assertEquals("default", Cluster.admittedGroup(cluster.tfJob(running)));
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3))
                .until(() -> Cluster.suspended(cluster.tfJob(queued)));

        cluster.succeed(running);
        await().atMost(Duration.ofSeconds(10)).until(() -> !Cluster.suspended(cluster.tfJob(queued)));
        assertEquals("default", Cluster.admittedGroup(cluster.tfJob(queued)));
    }

    @Test
    void aNamespaceWithoutResourceQuotaIsUnlimited() {
        Cluster cluster = new Cluster(client);
        cluster.apply("/seed/tfjobs-resourcequota.yaml");
        await().atMost(Duration.ofSeconds(10)).until(() -> !Cluster.suspended(cluster.tfJob("job1"))
                && !Cluster.suspended(cluster.tfJob("job2")));
    }
}
