package io.kubequeue.packaged;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.util.Map;
import java.util.OptionalInt;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;

/**
 * A replica that runs out of heap exits, so that Kubernetes restarts it (issue: with 15,000 Jobs it hit
 * OutOfMemoryError in informer and reconciler threads and kept running without admitting anything). The JVM
 * options are the shipped Deployment's ({@code JAVA_TOOL_OPTIONS} in {@code target/kubernetes/kubernetes.yml}),
 * with a heap far too small for the jobs in the cluster. JVM build only: a native binary reads no
 * {@code JAVA_TOOL_OPTIONS}.
 */
class OutOfMemoryIT {

    /** 150 Jobs of 200 KiB each (under the API server's 256 KiB for annotations): 30 MiB of JSON. */
    private static final int JOBS = 150;
    private static final String PADDING = "x".repeat(200 * 1024);

    @Test
    void aReplicaOutOfHeapExitsInsteadOfRunningOnBroken() {
        assumeTrue(PackagedOperator.artifact().toString().endsWith(".jar"), "JVM build only");
        String jvmOptions = Rendered.literalEnv(Rendered.generatedManifests().controller()).get("JAVA_TOOL_OPTIONS");
        assertNotNull(jvmOptions, "the shipped Deployment sets JAVA_TOOL_OPTIONS");

        KubernetesMockServer api = PackagedOperator.mockApiServer();
        try (KubernetesClient client = api.createClient()) {
            for (int i = 0; i < JOBS; i++) {
                Job job = new JobBuilder().withNewMetadata().withName("big-" + i).withNamespace("default")
                        .addToAnnotations("padding", PADDING).endMetadata()
                        .withNewSpec().withSuspend(true).withNewTemplate().withNewSpec().addNewContainer()
                        .withName("c").withImage("busybox").endContainer().endSpec().endTemplate().endSpec().build();
                client.batch().v1().jobs().inNamespace("default").resource(job).create();
            }
            try (PackagedOperator replica = PackagedOperator.startWithHeap("kube-queue-out-of-heap",
                    client.getConfiguration().getMasterUrl(), Map.of("JAVA_TOOL_OPTIONS", jvmOptions), "48m")) {
                OptionalInt exit = replica.exitWithin(Duration.ofSeconds(90));
                assertTrue(exit.isPresent(), "still running with a heap it cannot work in; log: "
                        + replica.logFile().toAbsolutePath());
                assertEquals(3, exit.getAsInt(), "the JVM's exit code for ExitOnOutOfMemoryError");
                await().atMost(Duration.ofSeconds(5))
                        .until(() -> replica.log().contains("Terminating due to java.lang.OutOfMemoryError"));
            }
        } finally {
            api.destroy();
        }
    }
}
