package io.kubequeue.bench;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;

/**
 * kube-queue's end-to-end benchmark: a command, not a test (docs/performance.md). For each load it runs, each on a
 * fresh API server state, kube-queue as a separate process (once per policy) and the in-process reference admitter,
 * after a raw patch-rate probe, then prints every figure beside the reference's, and the targets.
 *
 * <pre>./mvnw -B -q -Pbench package -Dbench.args="--load baseline --latency 150ms"</pre>
 *
 * <p>Exit code: 0 when every run completed without excess (targets may FAIL: they are printed, not enforced), 1
 * when any run admitted above a group's max, 2 when a run did not complete or the options are wrong.
 */
public final class BenchMain {

    private BenchMain() {
    }

    public static void main(String... args) throws Exception {
        quietLogs();
        BenchOptions options;
        try {
            options = BenchOptions.parse(args.length == 1 ? args[0].trim().split("\\s+") : args);
        } catch (IllegalArgumentException e) {
            System.err.println("bench: " + e.getMessage());
            System.err.println(BenchOptions.USAGE);
            System.exit(2);
            return;
        }
        PrintStream out = System.out;
        out.printf("kube-queue benchmark: %s%n", options.describe());
        out.printf("machine: %d cores (nproc), %,d MiB memory, %s %s (%s), %s%n", ProcStats.cores(), ProcStats.memoryMiB(),
                System.getProperty("java.vm.name"), System.getProperty("java.runtime.version"),
                System.getProperty("java.vendor"), System.getProperty("os.name") + " " + System.getProperty("os.version"));

        List<RunResult> results = new ArrayList<>();
        PatchRateProbe.Result probe = null;
        ApiServer cluster = options.kubeconfig() == null ? null : ApiServer.cluster(options.kubeconfig());
        try {
            KubeQueueProcess.Shipped shipped = null;
            if (options.runs().contains("kube-queue")) {
                try (KubernetesClient offline = new KubernetesClientBuilder().withConfig(Config.empty()).build()) {
                    shipped = KubeQueueProcess.Shipped.read(options.manifests(), offline);
                }
                out.printf("kube-queue: %s, as the Deployment in %s ships it: env %s, limits memory %s, cpu %s%n",
                        options.jar(), options.manifests(), shipped.env(), shipped.memoryLimit(), shipped.cpuLimit());
            }
            if (options.runs().contains("probe")) {
                // first: it also warms up the harness's JVM (mock server, client, watch) before the measured runs
                Load load = Load.burst(options.scale());
                out.printf("%n--- raw patch-rate probe: %,d Jobs, %d in flight%n", load.jobs.size(), options.inFlight());
                try (ApiServer server = serverFor(options, cluster)) {
                    probe = PatchRateProbe.run(server, load, options.inFlight(), options.timeout());
                }
                out.printf("    %s%n", probe.error() != null ? "failed: " + probe.error()
                        : String.format("%.1f patches/s %s", probe.rate(), probe.budget()));
            }
            BenchRun run = new BenchRun(options, shipped, out);
            for (String load : options.loads()) {
                if (options.runs().contains("reference") && Load.backlogSize(load) >= 0) {
                    out.printf("%n--- %s: no reference run (its targets compare kube-queue with itself)%n", load);
                } else if (options.runs().contains("reference")) {
                    // one reference per mode the chosen policies compare against
                    for (Policy mode : options.policies().stream().map(Policy::reference).distinct().toList()) {
                        try (ApiServer server = serverFor(options, cluster)) {
                            results.add(run.run(server, load, true, mode));
                        }
                    }
                }
                if (options.runs().contains("kube-queue")) {
                    for (Policy policy : options.policies()) {
                        try (ApiServer server = serverFor(options, cluster)) {
                            results.add(run.run(server, load, false, policy));
                        }
                    }
                }
            }
        } finally {
            if (cluster != null) {
                cluster.dispose();
            }
        }
        Report report = new Report(out, options);
        report.print(results, probe);
        report.targets(results, probe);
        int code = 0;
        if (results.stream().anyMatch(r -> !r.complete()) || (probe != null && probe.error() != null)) {
            out.println("some run did not complete: exit 2");
            code = 2;
        }
        if (results.stream().anyMatch(r -> r.excessEvents() > 0)) {
            out.println("a group's max was exceeded: exit 1");
            code = 1;
        }
        out.flush();
        System.exit(code);
    }

    /**
     * A new embedded server for each run (a fresh state), or the one cluster (whose {@code close} keeps it open; each
     * run clears it first).
     */
    private static ApiServer serverFor(BenchOptions options, ApiServer cluster) {
        if (cluster != null) {
            return cluster;
        }
        return ApiServer.embedded(options.mock().equals("indexed"), options.writeLatency(), options.readLatency(),
                options.writeRate());
    }

    /** fabric8, Vert.x and the mock server log at INFO per request and per watch; the benchmark prints its own. */
    private static void quietLogs() {
        Logger root = Logger.getLogger("");
        root.setLevel(Level.WARNING);
        for (var h : root.getHandlers()) {
            h.setLevel(Level.WARNING);
        }
        Logger.getLogger("io.fabric8").setLevel(Level.SEVERE);
        Logger.getLogger("io.vertx").setLevel(Level.SEVERE);
        Logger.getLogger("io.netty").setLevel(Level.SEVERE);
    }
}
