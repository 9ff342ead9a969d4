package io.kubequeue.kubectl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code kubectl-queue} plugin (src/main/kubectl), run against a stand-in {@code kubectl} that records its
 * arguments and answers as kube-queue's API would through the service proxy.
 */
class KubectlQueuePluginTest {

    private static final Path PLUGIN = Path.of("src/main/kubectl/kubectl-queue").toAbsolutePath();
    private static final String PROXY = "/api/v1/namespaces/kube-queue/services/kube-queue-controller:http/proxy/api/v1";
    private static final String QUEUES = """
            [{"name":"root.defaultQuotaGroup","parent":"root","policy":"DEFAULT","min":{},"max":{"cpu":"4","memory":"4Gi"},\
            "used":{"cpu":"4","memory":"512Mi"},"outside":{},"pending":1,"admitted":2}]""";

    @TempDir
    Path dir;

    record Run(int exit, String out, List<String> kubectlArgs) {
    }

    private Run run(Map<String, String> env, String... args) throws IOException, InterruptedException {
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/bin/bash")) || Files.isExecutable(Path.of("/usr/bin/bash")),
                "the plugin is a bash script");
        Path answer = dir.resolve("answer.json");
        Files.writeString(answer, QUEUES);
        Path fake = dir.resolve("kubectl");
        Files.writeString(fake, "#!/usr/bin/env bash\nprintf '%s\\n' \"$@\" > \"" + dir.resolve("args") + "\"\n"
                + "cat \"" + answer + "\"\n");
        assertTrue(fake.toFile().setExecutable(true));
        List<String> command = new ArrayList<>(List.of("bash", PLUGIN.toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().put("PATH", dir + ":" + System.getenv("PATH"));
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(20, TimeUnit.SECONDS));
        Path recorded = dir.resolve("args");
        return new Run(p.exitValue(), out, Files.exists(recorded) ? Files.readAllLines(recorded) : List.of());
    }

    private static boolean jq() {
        for (String d : System.getenv("PATH").split(":")) {
            if (Files.isExecutable(Path.of(d, "jq"))) {
                return true;
            }
        }
        return false;
    }

    @Test
    void eachCommandAsksTheServiceProxyForItsPath() throws Exception {
        Map<String, String> raw = Map.of("KUBECTL_QUEUE_OUTPUT", "json");
        assertEquals(List.of("get", "--raw", PROXY + "/queues"), run(raw).kubectlArgs());
        assertEquals(List.of("get", "--raw", PROXY + "/queues/root.defaultQuotaGroup/jobs"),
                run(raw, "jobs", "root.defaultQuotaGroup").kubectlArgs());
        assertEquals(List.of("get", "--raw", PROXY + "/jobs/default/batch-c"),
                run(raw, "job", "default/batch-c").kubectlArgs());
        assertEquals(List.of("create", "--raw", PROXY + "/dry-run", "-f", "job.yaml"),
                run(raw, "dry-run", "job.yaml").kubectlArgs());
        assertEquals(List.of("get", "--raw", "/api/v1/namespaces/ops/services/kq:http/proxy/api/v1/queues"),
                run(Map.of("KUBE_QUEUE_NAMESPACE", "ops", "KUBE_QUEUE_SERVICE", "kq:http",
                        "KUBECTL_QUEUE_OUTPUT", "json")).kubectlArgs());
    }

    @Test
    void rawOutputIsTheApisAnswer() throws Exception {
        Run run = run(Map.of("KUBECTL_QUEUE_OUTPUT", "json"), "queues");
        assertEquals(0, run.exit());
        assertEquals(QUEUES, run.out().strip());
    }

    @Test
    void queuesPrintAsATable() throws Exception {
        Assumptions.assumeTrue(jq(), "tables need jq");
        Run run = run(Map.of());
        assertEquals(0, run.exit(), run.out());
        List<String> lines = run.out().lines().toList();
        assertEquals(List.of("GROUP", "PENDING", "ADMITTED", "CPU", "USED/MAX", "MEMORY", "USED/MAX", "POLICY"),
                List.of(lines.get(0).trim().split("\\s+")));
        assertEquals(List.of("root.defaultQuotaGroup", "1", "2", "4/4", "512Mi/4Gi", "DEFAULT"),
                List.of(lines.get(1).trim().split("\\s+")));
    }

    @Test
    void helpPrintsTheUsageAndSucceeds() throws Exception {
        for (String flag : List.of("-h", "--help", "help")) {
            Run run = run(Map.of(), flag);
            assertEquals(0, run.exit(), flag + " is a question, not a mistake");
            assertTrue(run.out().contains("kubectl queue job NAMESPACE/NAME"), run.out());
            assertTrue(run.kubectlArgs().isEmpty(), "kubectl was not called");
        }
    }

    @Test
    void aWrongCallPrintsTheUsageAndFails() throws Exception {
        Run run = run(Map.of(), "job", "no-slash");
        assertEquals(2, run.exit());
        assertTrue(run.out().contains("kubectl queue job NAMESPACE/NAME"), run.out());
        assertTrue(run.kubectlArgs().isEmpty(), "kubectl was not called");
    }
}
