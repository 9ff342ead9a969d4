package io.kubequeue.packaged;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.kubequeue.testing.StrictApiServer;

/**
 * Issue 32, item 2: SIGTERM logs no ERROR, whichever kinds the cluster serves. Before, the controllers of kinds not
 * served were still starting (JOSDK waits for each informer's first sync, up to the cache-sync timeout, in the
 * background: {@code quarkus.operator-sdk.async-start}) when the shutdown closed JOSDK's executors under them, and
 * the start logged {@code ERROR … OperatorException: Error starting operator} (a RejectedExecutionException).
 */
class QuietShutdownIT {

    /** Both MPIJob versions, Argo Workflows and kube-queue's own QueuedKinds: none served. */
    private static KubernetesMockServer apiServingFewKinds() {
        KubernetesMockServer api = PackagedOperator.mockApiServer();
        StrictApiServer.unserved(api, "kubeflow.org", "v1", "mpijobs");
        StrictApiServer.unserved(api, "kubeflow.org", "v2beta1", "mpijobs");
        StrictApiServer.unserved(api, "argoproj.io", "v1alpha1", "workflows");
        StrictApiServer.unserved(api, "kube-queue.io", "v1alpha1", "queuedkinds");
        return api;
    }

    @Test
    void sigtermWhenReadyLogsNoError() {
        KubernetesMockServer api = apiServingFewKinds();
        try (KubernetesClient client = api.createClient();
             PackagedOperator replica = PackagedOperator.start("kube-queue-quiet-when-ready",
                     client.getConfiguration().getMasterUrl(), Map.of())) {
            await("ready").atMost(Duration.ofSeconds(60)).until(() -> {
                if (!replica.alive()) {
                    throw new AssertionError("the replica exited: " + replica.log());
                }
                return replica.ready();
            });
            assertQuietStop(replica);
        } finally {
            api.destroy();
        }
    }

    /** The race itself: SIGTERM while JOSDK is still starting the controllers, before the replica is ready. */
    @Test
    void sigtermWhileTheControllersStartLogsNoError() {
        KubernetesMockServer api = apiServingFewKinds();
        try (KubernetesClient client = api.createClient();
             PackagedOperator replica = PackagedOperator.start("kube-queue-quiet-while-starting",
                     client.getConfiguration().getMasterUrl(), Map.of())) {
            await("the operator starting its controllers").atMost(Duration.ofSeconds(60)).pollInterval(
                    Duration.ofMillis(20)).until(() -> {
                        if (!replica.alive()) {
                            throw new AssertionError("the replica exited: " + replica.log());
                        }
                        return replica.log().contains("Starting operator");
                    });
            assertQuietStop(replica);
        } finally {
            api.destroy();
        }
    }

    private static void assertQuietStop(PackagedOperator replica) {
        int exit = replica.stop();
        String log = replica.log();
        assertTrue(exit == 0 || exit == 143, "ended by SIGTERM, not halted: " + exit + "; log: " + log);
        List<String> errors = log.lines().filter(l -> l.contains(" ERROR ")).toList();
        assertEquals(List.of(), errors, "no ERROR at shutdown; log: " + replica.logFile().toAbsolutePath());
        assertTrue(log.lines().noneMatch(l -> l.contains("Error starting operator")), log);
        List<String> traces = log.lines().filter(l -> l.startsWith("\tat ") || l.startsWith("Caused by:")).toList();
        assertEquals(List.of(), traces, "no stack trace at shutdown; log: " + log);
    }
}
