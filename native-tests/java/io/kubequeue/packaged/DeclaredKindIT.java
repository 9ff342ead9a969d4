package io.kubequeue.packaged;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.kubequeue.job.JobKinds;
import io.kubequeue.testing.AccessReviews;
import io.kubequeue.testing.Cluster;
import io.kubequeue.testing.JobSets;
import io.kubequeue.testing.StrictApiServer;

/**
 * Issue 31, end to end on the packaged artifact: the chart's JobSet preset (helm/kube-queue/presets/jobset.yaml, as
 * the chart installs it) against JobSet's upstream CRD. JobSets are queued, admitted by quota in order, charged by
 * their pod sets; after a restart the running one is charged again from its admission record before anything is
 * admitted (the waiting one stays waiting), and when it completes the next is admitted.
 */
class DeclaredKindIT {

    private static final Duration START = Duration.ofSeconds(90);

    @Test
    void aPresetKindIsQueuedAdmittedInOrderAndRecoveredAfterARestart() throws IOException {
        KubernetesMockServer api = PackagedOperator.mockApiServer();
        try (KubernetesClient client = api.createClient()) {
            new Cluster(client).apply("/seed/elasticquotatree.yaml"); // root.defaultQuotaGroup: max 4 cpu
            JobSets.installCrd(client);
            for (String verb : JobKinds.VERBS) {
                StrictApiServer.access(api).grant(AccessReviews.SELF, verb, "jobset.x-k8s.io", "jobsets", "");
            }
            client.resource(Files.readString(Path.of("helm", "kube-queue", "presets", "jobset.yaml"))).create();

            PackagedOperator first = PackagedOperator.start("kube-queue-declared", client.getConfiguration()
                    .getMasterUrl(), Map.of());
            await("ready").atMost(START).until(() -> alive(first) && first.ready() && first.leads());
            create(client, "first", 3);   // 1 replicated job × 1 replica × 3 pods × 1 cpu = 3 of the group's 4 cpu
            await("the first JobSet admitted").atMost(Duration.ofSeconds(30)).until(() -> !suspended(client, "first"));
            create(client, "second", 2);  // 2 cpu: waits
            await("the second JobSet waits").during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10))
                    .until(() -> suspended(client, "second"));
            assertEquals("{\"cpu\":\"3\"}", client.genericKubernetesResources(JobSets.JOBSETS).inNamespace("default")
                    .withName("first").get().getMetadata().getAnnotations().get("kube-queue/admitted-request"),
                    "charged by its pod sets, in the same admission record as the built-in kinds");
            int exit = first.stop();
            assertTrue(exit == 0 || exit == 143, first.log());

            PackagedOperator second = PackagedOperator.start("kube-queue-declared-again", client.getConfiguration()
                    .getMasterUrl(), Map.of());
            try {
                await("ready again").atMost(START).until(() -> alive(second) && second.ready() && second.leads());
                assertTrue(second.log().contains("queuing JobSet"), second.log());
                await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10))
                        .until(() -> suspended(client, "second"));

                GenericKubernetesResource done = client.genericKubernetesResources(JobSets.JOBSETS).inNamespace("default")
                        .withName("first").get();
                done.setAdditionalProperty("status", Map.of("conditions", List.of(Map.of("type", "Completed",
                        "status", "True", "reason", "AllJobsCompleted", "message", "jobs completed",
                        "lastTransitionTime", "2026-12-05T00:00:00Z"))));
                client.genericKubernetesResources(JobSets.JOBSETS).inNamespace("default").resource(done).updateStatus();
                await("the second JobSet admitted once the first completed").atMost(Duration.ofSeconds(30))
                        .until(() -> !suspended(client, "second"));
                List<String> traces = second.log().lines().filter(l -> l.startsWith("\tat ")).toList();
                assertEquals(List.of(), traces, second.log());
            } finally {
                second.close();
            }
        } finally {
            api.destroy();
        }
    }

    private static boolean alive(PackagedOperator replica) {
        if (!replica.alive()) {
            throw new AssertionError("the replica exited: " + replica.log());
        }
        return true;
    }

    private static void create(KubernetesClient client, String name, int pods) {
        JobSets.create(client, name, pods, "1");
    }

    private static boolean suspended(KubernetesClient client, String name) {
        return JobSets.suspended(JobSets.get(client, name));
    }
}
