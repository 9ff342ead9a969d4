package io.kubequeue.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubequeue.job.JobKinds;
import io.kubequeue.job.batch.BatchJobKind;
import io.kubequeue.operator.Manifests;

/**
 * kube-queue as a separate process, as it ships: {@code java -jar quarkus-run.jar} with the env vars of the
 * generated Deployment ({@code JAVA_TOOL_OPTIONS}, the seed's switches, the shutdown deadline), the JVM told the
 * container's limits the Deployment sets (memory → {@code -XX:MaxRAM}, so {@code MaxRAMPercentage} sizes the heap
 * from it; cpu → {@code -XX:ActiveProcessorCount}, which picks the GC and the thread pools), and the benchmark's
 * own settings: where the API server is, leader election off, the job kinds the load does not use disabled,
 * the policy ({@code StrictPriority}, {@code StrictConsistency}), and {@code KUBE_QUEUE_ADMISSION_IN_FLIGHT} when {@code --in-flight} is given.
 *
 * <p>Its output goes to {@code target/bench/<name>.log}.
 */
final class KubeQueueProcess implements AutoCloseable {

    private static final HttpClient LOCAL = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    /**
     * What the generated Deployment says about kube-queue's container.
     *
     * @param env         its env vars with a plain value ({@code JAVA_TOOL_OPTIONS} among them), in order
     * @param memoryLimit {@code resources.limits.memory}, or null
     * @param cpuLimit    {@code resources.limits.cpu}, or null
     * @param unusedKinds the kinds the load does not submit, comma-separated: every kind kube-queue knows
     *                    ({@link JobKinds#names}) but the batch Job's, so a new kind needs no change here
     */
    record Shipped(Map<String, String> env, Quantity memoryLimit, Quantity cpuLimit, String unusedKinds) {

        /** Reads the Deployment {@code kube-queue-controller} from the generated manifests. */
        static Shipped read(Path manifests, KubernetesClient client) {
            List<HasMetadata> objects;
            try (InputStream in = Files.newInputStream(manifests)) {
                objects = Manifests.read(client, in);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + manifests
                        + " (./mvnw package generates it; the bench profile packages first)", e);
            }
            Deployment deployment = objects.stream().filter(Deployment.class::isInstance).map(Deployment.class::cast)
                    .filter(d -> "kube-queue-controller".equals(d.getMetadata().getName())).findFirst()
                    .orElseThrow(() -> new IllegalStateException("no Deployment kube-queue-controller in " + manifests));
            Container container = deployment.getSpec().getTemplate().getSpec().getContainers().get(0);
            Map<String, String> env = new LinkedHashMap<>();
            for (EnvVar e : container.getEnv()) {
                if (e.getValue() != null) {
                    env.put(e.getName(), e.getValue());
                }
            }
            Map<String, Quantity> limits = container.getResources() == null || container.getResources().getLimits() == null
                    ? Map.of() : container.getResources().getLimits();
            String batch = new BatchJobKind().kind();
            String unusedKinds = String.join(",", JobKinds.names(client).stream().filter(k -> !k.equals(batch)).toList());
            return new Shipped(env, limits.get("memory"), limits.get("cpu"), unusedKinds);
        }
    }

    private final String name;
    private final Process process;
    private final int port;
    private final int apiPort;
    private final Path log;
    private final List<String> command;
    private final Map<String, String> benchEnv;

    private KubeQueueProcess(String name, Process process, int port, int apiPort, Path log, List<String> command,
                             Map<String, String> benchEnv) {
        this.apiPort = apiPort;
        this.name = name;
        this.process = process;
        this.port = port;
        this.log = log;
        this.command = command;
        this.benchEnv = benchEnv;
    }

    /**
     * Starts kube-queue.
     *
     * @param name   the run's name: the log file's and the pod name kube-queue is given ({@code HOSTNAME})
     * @param policy the policy: its {@code StrictPriority} and {@code StrictConsistency}
     */
    static KubeQueueProcess start(String name, BenchOptions options, Shipped shipped, ApiServer server, Policy policy) {
        if (!Files.isRegularFile(options.jar())) {
            throw new IllegalStateException("no kube-queue jar at " + options.jar().toAbsolutePath()
                    + ": build it with ./mvnw package (the bench profile does)");
        }
        int port = freePort();
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        if (options.podLimits()) {
            if (shipped.memoryLimit() != null) {
                command.add("-XX:MaxRAM=" + shipped.memoryLimit().getNumericalAmount().setScale(0, RoundingMode.FLOOR)
                        .toPlainString());
            }
            if (shipped.cpuLimit() != null) {
                int cpus = Math.max(1, shipped.cpuLimit().getNumericalAmount().setScale(0, RoundingMode.CEILING).intValueExact());
                command.add("-XX:ActiveProcessorCount=" + cpus);
            }
        }
        if (options.heap() != null) {
            command.add("-Xmx" + options.heap());
        }
        command.add("-jar");
        command.add(options.jar().toAbsolutePath().toString());

        Map<String, String> bench = new LinkedHashMap<>(server.kubeQueueEnv());
        bench.put("KUBERNETES_NAMESPACE", "kube-queue");
        bench.put("HOSTNAME", name);
        bench.put("POD_NAMESPACE", "kube-queue");
        // port is the management port (health, metrics); the read API's is where the harness reads the start-time
        // estimates (issue 30), opened to it as the tests open it: no token review against the embedded server
        int apiPort = freePort();
        bench.put("QUARKUS_HTTP_PORT", Integer.toString(apiPort));
        bench.put("KUBE_QUEUE_READ_API_AUTHENTICATION", "none");
        bench.put("QUARKUS_MANAGEMENT_PORT", Integer.toString(port));
        bench.put("KUBE_QUEUE_LEADER_ELECTION_ENABLED", "false");
        bench.put("KUBE_QUEUE_DISABLED_KINDS", shipped.unusedKinds());
        bench.putAll(policy.env());
        if (options.inFlightGiven()) {
            bench.put("KUBE_QUEUE_ADMISSION_IN_FLIGHT", Integer.toString(options.inFlight()));
        }
        try {
            Path dir = Path.of("target", "bench");
            Files.createDirectories(dir);
            Path log = dir.resolve(name + ".log").toAbsolutePath();
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
            Map<String, String> env = builder.environment();
            env.keySet().removeIf(k -> k.startsWith("KUBERNETES_") || k.equals("KUBECONFIG") || k.equals("JAVA_TOOL_OPTIONS"));
            env.putAll(shipped.env());
            env.putAll(bench);
            return new KubeQueueProcess(name, builder.start(), port, apiPort, log, command, bench);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start kube-queue", e);
        }
    }

    /** The command line and the env vars the benchmark set (beside the Deployment's), for the report. */
    String describe(Shipped shipped) {
        return "JAVA_TOOL_OPTIONS=\"" + shipped.env().getOrDefault("JAVA_TOOL_OPTIONS", "") + "\" "
                + String.join(" ", command.subList(1, command.size())) + "\n    env beside the Deployment's: " + benchEnv;
    }

    /** Waits until {@code /q/health/ready} answers 200; false if the process ended or the time ran out. */
    boolean awaitReady(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                return false;
            }
            if (get("/q/health/ready").statusCode() == 200) {
                return true;
            }
            Thread.sleep(200);
        }
        return false;
    }

    /** The read API's base address ({@code /api/v1} below it), open to the harness without a token. */
    String apiBase() {
        return "http://127.0.0.1:" + apiPort;
    }

    /** Whether {@code /q/metrics} publishes {@code series} at all (a figure absent, not zero, when it does not). */
    boolean publishes(String series) {
        for (String line : metricsText().split("\n")) {
            if (line.startsWith(series + "{") || line.startsWith(series + " ")) {
                return true;
            }
        }
        return false;
    }

    long pid() {
        return process.pid();
    }

    boolean alive() {
        return process.isAlive();
    }

    Path log() {
        return log;
    }

    /**
     * The heap in use right after a full GC, bytes: {@code jcmd <pid> GC.run} (a full, stop-the-world collection,
     * as {@code System.gc()}), then at once {@code jcmd <pid> GC.heap_info}, the generations' {@code used} summed
     * ({@link #heapUsedKiB}). It holds the dead objects SerialGC's full collection leaves in place
     * ({@code -XX:MarkSweepDeadRatio}, up to 5 % of the old generation) and what was allocated since: read at once
     * rather than from
     * {@code jvm_memory_used_bytes{area="heap"}}, which a scrape reads only after rendering kube-queue's series. The
     * backlog's live heap is read from a class histogram instead ({@link #histogramTotalBytes}). The gauge is the
     * fallback if {@code GC.heap_info} does not read. -1 if neither is available.
     */
    long heapAfterFullGc() throws InterruptedException {
        String info;
        try {
            if (jcmd("GC.run") == null) {
                return -1;
            }
            info = jcmd("GC.heap_info");
        } catch (IOException e) {
            return -1;
        }
        long kib = info == null ? -1 : heapUsedKiB(info);
        if (kib >= 0) {
            return kib * 1024;
        }
        double heap = metric("jvm_memory_used_bytes", "area=\"heap\"");
        return heap > 0 ? (long) heap : -1;
    }

    /**
     * The bytes of the {@code Total} line of a {@code jcmd GC.class_histogram} written to {@code file}: every live
     * object after the full GC the histogram runs first. -1 if the file or the line does not read.
     */
    static long histogramTotalBytes(Path file) {
        try {
            for (String line : Files.readAllLines(file)) {
                String[] parts = line.trim().split("\\s+");
                if (parts.length == 3 && parts[0].equals("Total")) {
                    return Long.parseLong(parts[2]);
                }
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }

    /** What {@code jcmd <pid> COMMAND} printed, or null if it failed or took over a minute. */
    private String jcmd(String command) throws IOException, InterruptedException {
        Process jcmd = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                Long.toString(process.pid()), command).redirectErrorStream(true).start();
        String out = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!jcmd.waitFor(60, TimeUnit.SECONDS) || jcmd.exitValue() != 0) {
            return null;
        }
        return out;
    }

    private static final java.util.regex.Pattern GENERATION_USED =
            java.util.regex.Pattern.compile("total\\s+(\\d+)K,\\s+used\\s+(\\d+)K");

    /**
     * The heap's {@code used} KiB in {@code jcmd GC.heap_info}'s text: the sum over its generation lines
     * ({@code def new generation} and {@code tenured generation} for the serial collector, {@code PSYoungGen} and
     * {@code ParOldGen}, or one {@code garbage-first heap} line); Metaspace is not heap. -1 if no line reads.
     */
    static long heapUsedKiB(String heapInfo) {
        long used = 0;
        boolean any = false;
        for (String line : heapInfo.split("\n")) {
            if (line.contains("Metaspace") || line.contains("class space")) {
                continue;
            }
            var m = GENERATION_USED.matcher(line);
            if (m.find()) {
                used += Long.parseLong(m.group(2));
                any = true;
            }
        }
        return any ? used : -1;
    }

    /**
     * Writes {@code jcmd <pid> GC.class_histogram} (live objects by class, after a full GC) to {@code file} and
     * returns its first {@code lines} lines (the header and the classes that hold the most bytes); empty if jcmd
     * failed.
     */
    List<String> classHistogram(Path file, int lines) throws InterruptedException {
        try {
            Process jcmd = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                    Long.toString(process.pid()), "GC.class_histogram").redirectErrorStream(true)
                    .redirectOutput(file.toFile()).start();
            if (!jcmd.waitFor(120, TimeUnit.SECONDS) || jcmd.exitValue() != 0) {
                return List.of();
            }
            List<String> all = Files.readAllLines(file);
            return all.subList(0, Math.min(lines, all.size()));
        } catch (IOException e) {
            return List.of();
        }
    }

    /**
     * The sum of one series' samples on {@code /q/metrics} whose labels contain {@code labelPart}; 0 if none.
     * (Prometheus' text format: one sample a line, {@code name{labels} value}.)
     */
    double metric(String series, String labelPart) {
        double sum = 0;
        for (String line : get("/q/metrics").body().split("\n")) {
            if (line.startsWith(series + "{") && line.contains(labelPart)) {
                sum += new BigDecimal(line.substring(line.lastIndexOf(' ') + 1).trim()).doubleValue();
            } else if (labelPart.isEmpty() && line.startsWith(series + " ")) {
                sum += new BigDecimal(line.substring(series.length() + 1).trim()).doubleValue();
            }
        }
        return sum;
    }

    /**
     * The value of the one sample of {@code series} whose labels contain {@code labelPart} (the first if several),
     * or NaN when kube-queue publishes none: a figure that is absent, not zero.
     */
    double sample(String series, String labelPart) {
        for (String line : get("/q/metrics").body().split("\n")) {
            if (line.startsWith(series + "{") && line.contains(labelPart)) {
                return new BigDecimal(line.substring(line.lastIndexOf(' ') + 1).trim()).doubleValue();
            }
        }
        return Double.NaN;
    }

    /** kube-queue's whole {@code /q/metrics} text now (empty when it does not answer). */
    String metricsText() {
        return get("/q/metrics").body();
    }

    private Answer get(String path) {
        try {
            HttpResponse<String> r = LOCAL.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            return new Answer(r.statusCode(), r.body());
        } catch (IOException e) {
            return new Answer(0, "");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Answer(0, "");
        }
    }

    /** Stops kube-queue as Kubernetes stops a pod: SIGTERM, then SIGKILL after 30 s. */
    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }

    @Override
    public String toString() {
        return name + " (pid " + process.pid() + ", port " + port + ", log " + log + ")";
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** One answer of kube-queue's HTTP port; status 0 and an empty body when it did not answer. */
    private record Answer(int statusCode, String body) {
    }
}
