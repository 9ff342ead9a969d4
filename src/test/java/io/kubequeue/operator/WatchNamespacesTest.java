package io.kubequeue.operator;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import java.util.function.Consumer;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.Operator;
import io.kubequeue.job.JobReconciler;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.kubequeue.testing.WithStrictApiServer;
import io.kubequeue.testing.Cluster;

/**
 * {@code KUBE_QUEUE_WATCH_NAMESPACES="team-a, team-c"}: kube-queue manages the jobs of those namespaces only; a
 * suspended job elsewhere is left alone (no admission, no event), as for a kind switched off.
 */
@QuarkusTest
@TestProfile(WatchNamespacesTest.TeamAOnly.class)
@WithStrictApiServer(setup = WatchNamespacesTest.JobsBeforeStart.class)
class WatchNamespacesTest {

    /** Suspended jobs that exist before kube-queue starts: its recovery list reads every namespace. */
    public static class JobsBeforeStart implements Consumer<KubernetesMockServer> {
        @Override
        public void accept(KubernetesMockServer server) {
            server.createClient().batch().v1().jobs().inNamespace("team-b").resource(job("team-b", "before-start")).create();
        }
    }

    public static class TeamAOnly implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("kube-queue.watch-namespaces", "team-a, team-c");
        }
    }

    @Inject
    KubernetesClient client;

    static Job job(String namespace, String name) {
        return new JobBuilder().withNewMetadata()
                .withName(name).withNamespace(namespace).endMetadata().withNewSpec().withSuspend(true)
                .withNewTemplate().withNewSpec().withRestartPolicy("Never").addNewContainer().withName("work")
                .withImage("busybox:stable").withNewResources().addToRequests("cpu", new Quantity("1")).endResources()
                .endContainer().endSpec().endTemplate().endSpec().build();
    }

    private Job submit(String namespace, String name) {
        return client.batch().v1().jobs().inNamespace(namespace).resource(job(namespace, name)).create();
    }

    private boolean suspended(String namespace, String name) {
        return Boolean.TRUE.equals(client.batch().v1().jobs().inNamespace(namespace).withName(name).get()
                .getSpec().getSuspend());
    }

    @Inject
    Operator operator;

    /**
     * JOSDK runs one informer per watched namespace and would give them all one item store, in which each informer's
     * re-list deletes the other namespaces' jobs: with several namespaces the informers keep fabric8's own stores
     * (whole objects), and still list in pages.
     */
    @Test
    void theInformersOfSeveralNamespacesKeepStoresOfTheirOwn() {
        var informer = operator.getRuntimeInfo().getRegisteredController("job").getConfiguration().getInformerConfig();
        assertNull(informer.getItemStore());
        assertEquals(JobReconciler.LIST_PAGE, informer.getInformerListLimit());
    }

    @Test
    void onlyTheWatchedNamespacesJobsAreManaged() {
        Cluster cluster = new Cluster(client);
        cluster.apply("/quota/two-teams.yaml");
        submit("team-b", "elsewhere");
        submit("team-a", "watched");
        await().atMost(Duration.ofSeconds(10)).until(() -> !suspended("team-a", "watched"));
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3)).until(() -> suspended("team-b", "elsewhere"));
        assertTrue(cluster.events("team-b", "elsewhere").isEmpty(), "no event on a job kube-queue leaves alone");
        given().when().get("/api/v1/jobs/team-b/elsewhere").then().statusCode(404);
        // also one the start-up recovery listed (it reads every namespace): not queued either
        given().when().get("/api/v1/jobs/team-b/before-start").then().statusCode(404);
        assertTrue(suspended("team-b", "before-start"));
        given().contentType("application/json").body("""
                {"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"x","namespace":"team-b"},
                 "spec":{"suspend":true,"template":{"spec":{"containers":[{"name":"c","image":"i",
                 "resources":{"requests":{"cpu":"1"}}}]}}}}""")
                .when().post("/api/v1/dry-run").then().statusCode(200).body("managed", equalTo(false))
                .body("reason", containsString("kube-queue.watch-namespaces"));
    }
}
