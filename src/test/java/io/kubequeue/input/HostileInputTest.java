package io.kubequeue.input;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.kubequeue.job.argo.Workflow;
import io.kubequeue.operator.Manifests;
import io.kubequeue.scheduler.Scheduler;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.testing.Cluster;
import io.kubequeue.testing.Hostile;
import io.kubequeue.testing.WithStrictApiServer;
import io.quarkus.test.junit.QuarkusTest;

/**
 * Issue 25, sequences 1 and 2, in one kube-queue against the strict mock API server: team-a's Workflow nested 1,200
 * levels and its jobs asking for {@code cpu: 1e999999999}, present before start-up and created while kube-queue
 * runs. Start-up recovery goes past them, no watch stops, each bad object gets its Warning, and the other team's
 * jobs are admitted.
 */
@QuarkusTest
@WithStrictApiServer(setup = HostileInputTest.PresentAtStart.class)
class HostileInputTest {

    private static final int DEPTH = 1_200;

    /** The two teams' tree, and team-a's hostile objects, before kube-queue starts. */
    public static class PresentAtStart implements Consumer<KubernetesMockServer> {
        @Override
        public void accept(KubernetesMockServer server) {
            KubernetesClient client = server.createClient();
            try (InputStream tree = HostileInputTest.class.getResourceAsStream("/hostile/tree.yaml")) {
                for (HasMetadata o : Manifests.read(client, tree)) {
                    client.resource(o).create();
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            Hostile.createWorkflow(client, "team-a", Hostile.workflow("team-a", "deep-at-start", DEPTH, "1"));
            Hostile.createWorkflow(client, "team-a",
                    Hostile.workflow("team-a", "huge-at-start", 1, Hostile.HUGE_QUANTITY));
            Hostile.createTfJob(client, "team-a", Hostile.tfJob("team-a", "tf-huge-at-start", Hostile.HUGE_QUANTITY));
            client.close();
        }
    }

    @Inject
    KubernetesClient client;

    @Inject
    Scheduler scheduler;

    /** The customizer reaches kube-queue's own client: it reads what a real API server may send. */
    @Test
    void theClientReadsAWorkflowNestedTheApiServersTenThousandLevels() {
        Workflow deep = client.getKubernetesSerialization().unmarshal(
                Hostile.workflow("team-a", "deep", JsonBounds.API_SERVER_MAX_DEPTH - 8, "1"), Workflow.class);
        assertEquals("deep", deep.getMetadata().getName());
    }

    @Test
    void startUpGoesPastHostileObjectsAndNoWatchStopsOnThemLater() {
        Cluster cluster = new Cluster(client);
        // start-up recovery listed them: the deep one is an ordinary job, the huge ones got their Warning
        await().atMost(Duration.ofSeconds(15)).until(() -> admitted("Workflow", "team-a", "deep-at-start"));
        await().atMost(Duration.ofSeconds(15)).until(() -> invalidJob(cluster, "team-a", "huge-at-start").size() == 1
                && invalidJob(cluster, "team-a", "tf-huge-at-start").size() == 1);
        String note = invalidJob(cluster, "team-a", "huge-at-start").get(0).getNote();
        assertTrue(note.contains("metadata.annotations[kube-queue/min-resources].cpu") && note.contains("exponent"),
                note);

        // while running: more of the same, then the other team's jobs, which must be seen and admitted
        Hostile.createWorkflow(client, "team-a", Hostile.workflow("team-a", "deep-later", DEPTH, "1"));
        Hostile.createWorkflow(client, "team-a", Hostile.workflow("team-a", "huge-later", 1, Hostile.HUGE_QUANTITY));
        Hostile.createTfJob(client, "team-a", Hostile.tfJob("team-a", "tf-huge-later", Hostile.HUGE_QUANTITY));
        Hostile.createWorkflow(client, "default", Hostile.workflow("default", "other-team-workflow", 1, "1"));
        cluster.submitJob("other-team-job", "1", Map.of(), null);

        await().atMost(Duration.ofSeconds(15)).until(() -> admitted("Workflow", "default", "other-team-workflow")
                && cluster.admitted("other-team-job") && admitted("Workflow", "team-a", "deep-later"));
        await().atMost(Duration.ofSeconds(15)).until(() -> invalidJob(cluster, "team-a", "huge-later").size() == 1
                && invalidJob(cluster, "team-a", "tf-huge-later").size() == 1);
        assertEquals(2000, scheduler.usage("root.team-a").get("cpu"), "the two deep workflows, 1 cpu each");
        assertTrue(scheduler.status(new JobKey("Workflow", "team-a", "huge-later")).isEmpty(), "not queued");
    }

    private boolean admitted(String kind, String namespace, String name) {
        return scheduler.status(new JobKey(kind, namespace, name))
                .map(s -> s.state() == JobState.ADMITTED).orElse(false);
    }

    private static List<Event> invalidJob(Cluster cluster, String namespace, String name) {
        return cluster.events(namespace, name).stream().filter(e -> "InvalidJob".equals(e.getReason())).toList();
    }
}
