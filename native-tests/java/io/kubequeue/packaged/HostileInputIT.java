package io.kubequeue.packaged;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.kubequeue.testing.Cluster;
import io.kubequeue.testing.Hostile;

/**
 * Issue 25, sequences 1 and 2, on the packaged artifact: team-a writes a Workflow nested 1,200 levels (a real API
 * server stores 10,000; Argo's CRD keeps unknown fields) and jobs asking for {@code cpu: 1e999999999}, before
 * kube-queue starts and while it runs. Before the fix the Workflow watch stopped for good and start-up recovery could
 * not list Workflows, so the process exited at every start (a crash loop); the quantity threw an ArithmeticException
 * out of start-up recovery. Now the replica keeps running and ready, the bad jobs get their Warning, and the other
 * team's jobs are admitted, before and after a restart.
 */
class HostileInputIT {

    private static final Duration START = Duration.ofSeconds(90);

    @Test
    void keepsRunningReadyAndAdmittingTheOtherTeamsJobs() {
        KubernetesMockServer api = PackagedOperator.mockApiServer();
        try (KubernetesClient client = api.createClient()) {
            Cluster cluster = new Cluster(client);
            cluster.apply("/hostile/tree.yaml");
            Hostile.createWorkflow(client, "team-a", Hostile.workflow("team-a", "deep-at-start", 1_200, "1"));
            Hostile.createWorkflow(client, "team-a", Hostile.workflow("team-a", "huge-at-start", 1,
                    Hostile.HUGE_QUANTITY));
            Hostile.createTfJob(client, "team-a", Hostile.tfJob("team-a", "tf-huge-at-start", Hostile.HUGE_QUANTITY));

            try (PackagedOperator first = PackagedOperator.start("kube-queue-hostile-1",
                    client.getConfiguration().getMasterUrl(), Map.of())) {
                awaitReadyLeading(first);
                cluster.submitJob("other-team-1", "1", Map.of(), null);
                await("the other team's job admitted").atMost(Duration.ofSeconds(30))
                        .until(() -> cluster.admitted("other-team-1"));

                Hostile.createWorkflow(client, "team-a", Hostile.workflow("team-a", "deep-later", 1_200, "1"));
                Hostile.createWorkflow(client, "team-a", Hostile.workflow("team-a", "huge-later", 1,
                        Hostile.HUGE_QUANTITY));
                Hostile.createTfJob(client, "team-a", Hostile.tfJob("team-a", "tf-huge-later", Hostile.HUGE_QUANTITY));
                Hostile.createWorkflow(client, "default", Hostile.workflow("default", "other-team-2", 1, "1"));
                await("the other team's Workflow, created after the deep one, admitted").atMost(Duration.ofSeconds(30))
                        .until(() -> admittedWorkflow(client, "default", "other-team-2"));
                await("team-a's deep Workflow admitted like any other").atMost(Duration.ofSeconds(30))
                        .until(() -> admittedWorkflow(client, "team-a", "deep-later"));
                await("one Warning for each bad job").atMost(Duration.ofSeconds(30)).until(() ->
                        invalidJob(cluster, "huge-at-start") && invalidJob(cluster, "tf-huge-at-start")
                                && invalidJob(cluster, "huge-later") && invalidJob(cluster, "tf-huge-later"));
                assertTrue(first.alive() && first.ready(), "still running and ready; log: " + first.logFile());
                assertFalse(first.log().contains("will stop"), "no watch stopped; log: " + first.logFile());
                first.stop();
            }

            // a restart finds every hostile object in its recovery list
            try (PackagedOperator second = PackagedOperator.start("kube-queue-hostile-2",
                    client.getConfiguration().getMasterUrl(), Map.of())) {
                awaitReadyLeading(second);
                cluster.submitJob("other-team-3", "1", Map.of(), null);
                await("admitted after the restart").atMost(Duration.ofSeconds(30))
                        .until(() -> cluster.admitted("other-team-3"));
                assertTrue(second.alive() && second.ready(), "log: " + second.logFile());
                assertFalse(second.log().contains("will stop"), "no watch stopped; log: " + second.logFile());
            }
        } finally {
            api.destroy();
        }
    }

    private static void awaitReadyLeading(PackagedOperator replica) {
        await("ready and leading").atMost(START).until(() -> {
            if (!replica.alive()) {
                throw new AssertionError("the replica exited (a crash loop in a cluster): " + replica.log());
            }
            return replica.ready() && replica.leads();
        });
    }

    private static boolean admittedWorkflow(KubernetesClient client, String namespace, String name) {
        String body = client.getHttpClient().sendAsync(client.getHttpClient().newHttpRequestBuilder()
                .uri(client.getMasterUrl() + "apis/argoproj.io/v1alpha1/namespaces/" + namespace + "/workflows/"
                        + name).build(), String.class).join().body();
        return body.contains("\"kube-queue/quota-group\"") && body.contains("\"suspend\":false");
    }

    private static boolean invalidJob(Cluster cluster, String name) {
        return cluster.events("team-a", name).stream().anyMatch(e -> "InvalidJob".equals(e.getReason()));
    }
}
