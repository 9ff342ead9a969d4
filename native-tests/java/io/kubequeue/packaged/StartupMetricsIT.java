package io.kubequeue.packaged;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.kubequeue.testing.Cluster;

/**
 * Measures the packaged artifact (the jar, or the native binary under {@code -Pnative}): its size on disk (the
 * binary, or the jar's whole {@code quarkus-app/} directory), the time
 * from process start to {@code /q/health/ready} answering 200 (start-up recovery done, informers synced) and its
 * resident memory, against the fabric8 mock server holding the seed's quota tree. It asserts only that the
 * replica gets ready; the numbers go to {@code target/packaged-tests/startup-metrics.md} (Markdown, which the
 * native workflow adds to its job summary) and to the test's output. Memory is read from
 * {@code /proc/<pid>/status}, so it is "n/a" off Linux; for the jar it is the JVM's.
 */
class StartupMetricsIT {

    private static final Duration START = Duration.ofSeconds(90);

    private KubernetesMockServer server;
    private KubernetesClient client;
    private PackagedOperator replica;

    @BeforeEach
    void startApiServer() {
        server = PackagedOperator.mockApiServer();
        client = server.createClient();
        new Cluster(client).apply("/seed/elasticquotatree.yaml");
    }

    @AfterEach
    void stopAll() {
        if (replica != null) {
            replica.close();
        }
        client.close();
        server.destroy();
    }

    @Test
    void sizeStartUpTimeAndMemory() throws IOException, InterruptedException {
        long t0 = System.nanoTime();
        replica = PackagedOperator.start("startup-metrics", client.getConfiguration().getMasterUrl(), Map.of());
        await().atMost(START).pollInterval(Duration.ofMillis(20)).until(() -> {
            assertTrue(replica.alive(), () -> "the replica exited; log: " + replica.logFile());
            return replica.ready();
        });
        long readyMillis = (System.nanoTime() - t0) / 1_000_000;
        String rssReady = memory("VmRSS");
        Thread.sleep(5000);
        String rssLater = memory("VmRSS");
        String peak = memory("VmHWM");
        String startedIn = replica.log().lines().filter(l -> l.contains(" started in ")).findFirst()
                .map(l -> l.replaceAll(".* (started in [0-9.]+s).*", "$1")).orElse("n/a");

        Path artifact = PackagedOperator.artifact();
        boolean jar = artifact.toString().endsWith(".jar");
        long size = jar ? treeSize(artifact.toAbsolutePath().getParent()) : Files.size(artifact);
        List<String> md = List.of(
                "### " + artifact.getFileName(),
                "",
                "| metric | value |",
                "|---|---|",
                "| size on disk | " + size / (1024 * 1024) + " MiB (" + size + " bytes"
                        + (jar ? ", the whole " + artifact.toAbsolutePath().getParent().getFileName() + "/" : "")
                        + ") |",
                "| process start to /q/health/ready 200 | " + readyMillis + " ms |",
                "| Quarkus' own start-up line | " + startedIn + " |",
                "| RSS when ready | " + rssReady + " |",
                "| RSS 5 s later | " + rssLater + " |",
                "| peak RSS (VmHWM) | " + peak + " |",
                "",
                "Against the fabric8 mock server holding the seed's quota tree, on the machine that ran the build:"
                        + " for comparing builds, not a service level.",
                "");
        Path out = Path.of("target", "packaged-tests", "startup-metrics.md");
        Files.createDirectories(out.getParent());
        Files.write(out, md);
        System.out.println(String.join("\n", md));
    }

    private static long treeSize(Path dir) throws IOException {
        try (var files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(f -> f.toFile().length()).sum();
        }
    }

    /** One line of {@code /proc/<pid>/status} in MiB, e.g. VmRSS; "n/a" where there is no /proc. */
    private String memory(String key) {
        Path status = Path.of("/proc", Long.toString(replica.pid()), "status");
        try {
            for (String line : Files.readAllLines(status)) {
                if (line.startsWith(key + ":")) {
                    long kib = Long.parseLong(line.replaceAll("\\D", ""));
                    return kib / 1024 + " MiB";
                }
            }
        } catch (IOException | NumberFormatException e) {
            // not Linux, or the process is gone
        }
        return "n/a";
    }
}
