package io.kubequeue.quota.elastic;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubequeue.scheduler.Scheduler;
import io.kubequeue.testing.Cluster;
import io.kubequeue.testing.WithStrictApiServer;
import io.quarkus.test.junit.QuarkusTest;

/**
 * Issue 29, item 3: a rejected edit of the tree is visible in the tree's own status. {@code observedGeneration} is
 * the generation last read, {@code Accepted} says whether it was valid (and why not), {@code InForce} and
 * {@code generationInForce} name the generation whose quota groups apply.
 */
@QuarkusTest
@WithStrictApiServer
class QuotaTreeConditionsTest {

    @Inject
    KubernetesClient client;

    @Inject
    Scheduler scheduler;

    @Test
    void aRejectedEditSaysWhyAndWhichGenerationStaysInForce() {
        for (String team : List.of("team-a", "team-b")) {
            client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(team).endMetadata().build())
                    .createOr(r -> r.update());
        }
        new Cluster(client).apply("/quota/two-teams.yaml");
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.tree().node("root.team-b").isPresent());
        long valid = tree().getMetadata().getGeneration();
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            ElasticQuotaTree.Status status = tree().getStatus();
            assertNotNull(status, "no status written yet");
            assertEquals(valid, status.getObservedGeneration());
            assertEquals(valid, status.getGenerationInForce());
            assertEquals("True", condition(status, "Accepted").getStatus());
            assertEquals("True", condition(status, "InForce").getStatus());
        });

        // the edit: team-a's min above its max; the groups of the valid generation stay
        teamAMin("6");
        long rejected = tree().getMetadata().getGeneration();
        assertTrue(rejected > valid, "the edit changed the spec, so its generation: " + rejected);
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            ElasticQuotaTree.Status status = tree().getStatus();
            assertEquals(rejected, status.getObservedGeneration());
            assertEquals(valid, status.getGenerationInForce());
            Condition accepted = condition(status, "Accepted");
            assertEquals("False", accepted.getStatus());
            assertEquals("InvalidSpec", accepted.getReason());
            assertTrue(accepted.getMessage().contains("min cpu 6 is above max 4"), accepted.getMessage());
            assertEquals(rejected, accepted.getObservedGeneration());
            Condition inForce = condition(status, "InForce");
            assertEquals("True", inForce.getStatus());
            assertTrue(inForce.getMessage().contains("generation " + valid), inForce.getMessage());
            assertEquals(3, status.getGroups(), "the groups in force are still the valid generation's");
        });
        assertEquals(4000L, scheduler.tree().node("root.team-a").orElseThrow().max().get("cpu"));

        // fixed again: accepted, and the new generation is in force
        teamAMin("1");
        long fixed = tree().getMetadata().getGeneration();
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            ElasticQuotaTree.Status status = tree().getStatus();
            assertEquals(fixed, status.getObservedGeneration());
            assertEquals(fixed, status.getGenerationInForce());
            assertEquals("True", condition(status, "Accepted").getStatus());
        });
    }

    private static Condition condition(ElasticQuotaTree.Status status, String type) {
        assertNotNull(status.getConditions(), "no conditions in " + status);
        return status.getConditions().stream().filter(c -> type.equals(c.getType())).findFirst()
                .orElseThrow(() -> new AssertionError("no condition " + type + " in " + status.getConditions()));
    }

    private void teamAMin(String cpu) {
        client.resources(ElasticQuotaTree.class).inNamespace("kube-system").withName("elasticquotatree")
                .edit(t -> {
                    t.getSpec().getRoot().getChildren().get(0).setMin(Map.of("cpu", new Quantity(cpu)));
                    return t;
                });
    }

    private ElasticQuotaTree tree() {
        return client.resources(ElasticQuotaTree.class).inNamespace("kube-system").withName("elasticquotatree").get();
    }
}
