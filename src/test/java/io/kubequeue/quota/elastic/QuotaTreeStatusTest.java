package io.kubequeue.quota.elastic;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubequeue.testing.Cluster;
import io.kubequeue.scheduler.Scheduler;
import io.kubequeue.testing.WithStrictApiServer;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.common.mapper.TypeRef;

/**
 * Issue 14, item 3: the ElasticQuotaTree's status, written by the leader, says per quota group what the read API
 * says ({@code GET /api/v1/queues}), so {@code kubectl get eqt -o wide} answers "how full is my group".
 */
@QuarkusTest
@WithStrictApiServer
class QuotaTreeStatusTest {

    @Inject
    KubernetesClient client;

    @Inject
    Scheduler scheduler;

    @Test
    void theTreesStatusSaysWhatTheReadApiSaysPerGroup() {
        for (String team : List.of("team-a", "team-b")) {
            client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(team).endMetadata().build())
                    .createOr(r -> r.update());
        }
        new Cluster(client).apply("/quota/two-teams.yaml");
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.tree().node("root.team-b").isPresent());
        submit("team-a", "a1", "3");
        submit("team-a", "a2", "3"); // waits: 3 of 4 in use
        submit("team-b", "b1", "1");
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.usage("root").get("cpu") == 4000
                && scheduler.pending("root.team-a").size() == 1);

        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            ElasticQuotaTree.Status status = statusMatchingTheReadApi();
            assertEquals(1, status.getPending());
            assertEquals(2, status.getAdmitted());
            assertEquals("root.team-a cpu 75%", status.getFullest());
            assertEquals("root cpu 4/8, 0 pending, 0 admitted; root.team-a cpu 3/4, 1 pending, 1 admitted;"
                    + " root.team-b cpu 1/4, 0 pending, 1 admitted", status.getUsage());
        });

        // a job that ends gives its room back, and the status follows
        client.batch().v1().jobs().inNamespace("team-b").withName("b1").delete();
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            ElasticQuotaTree.Status status = statusMatchingTheReadApi();
            assertEquals(1, status.getAdmitted());
            assertEquals(Map.of(), status.getNodes().stream().filter(n -> n.name().equals("root.team-b"))
                    .findFirst().orElseThrow().used());
        });
    }

    /** The tree's status, after checking that it says per group what {@code GET /api/v1/queues} says. */
    private ElasticQuotaTree.Status statusMatchingTheReadApi() {
        ElasticQuotaTree.Status status = tree().getStatus();
        org.junit.jupiter.api.Assertions.assertNotNull(status, "no status written yet");
        List<Map<String, Object>> api = given().when().get("/api/v1/queues").then().statusCode(200).extract()
                .as(new TypeRef<>() { });
        assertEquals(api.size(), status.getGroups());
        for (Map<String, Object> group : api) {
            ElasticQuotaTree.GroupStatus node = status.getNodes().stream()
                    .filter(n -> n.name().equals(group.get("name"))).findFirst().orElseThrow();
            assertEquals(group.get("used"), node.used(), "used of " + node.name());
            assertEquals(group.get("max"), node.max(), "max of " + node.name());
            assertEquals(group.get("min"), node.min(), "min of " + node.name());
            assertEquals(group.get("pending"), node.pending(), "pending of " + node.name());
            assertEquals(group.get("admitted"), node.admitted(), "admitted of " + node.name());
        }
        return status;
    }

    private ElasticQuotaTree tree() {
        return client.resources(ElasticQuotaTree.class).inNamespace("kube-system").withName("elasticquotatree").get();
    }

    private void submit(String namespace, String name, String cpu) {
        client.batch().v1().jobs().inNamespace(namespace).resource(new JobBuilder().withNewMetadata().withName(name)
                .endMetadata().withNewSpec().withSuspend(true).withNewTemplate().withNewSpec()
                .withRestartPolicy("Never").addNewContainer().withName("work").withImage("busybox:stable")
                .withNewResources().addToRequests("cpu", new Quantity(cpu)).endResources().endContainer().endSpec()
                .endTemplate().endSpec().build()).create();
    }
}
