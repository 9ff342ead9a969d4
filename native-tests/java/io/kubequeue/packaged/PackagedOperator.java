package io.kubequeue.packaged;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.kubequeue.testing.StrictApiServer;

/**
 * One kube-queue replica as users run it: the packaged artifact in a process of its own, talking to an API
 * server over HTTP. The artifact is the JVM build ({@code target/quarkus-app/quarkus-run.jar}) unless the system
 * property {@code kube-queue.it.artifact} names another (the native workflow sets the native binary), so the
 * same tests run against both.
 *
 * <p>The replica gets its settings the way a Deployment gives them: environment variables. Its output goes to
 * {@code target/packaged-tests/<name>.log}, which a failing test names.
 */
public final class PackagedOperator implements AutoCloseable {

    private static final Pattern SAMPLE = Pattern.compile("^(\\w+)(\\{[^}]*\\})? (\\S+)$");
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    /** The JVM build's heap in these tests, well below what the shipped Deployment's limit allows. */
    private static final String DEFAULT_HEAP = "256m";

    private final String name;
    private final int port;
    private final int managementPort;
    private final Path log;
    private final Process process;

    /**
     * Starts a replica.
     *
     * @param name      its pod name (the {@code HOSTNAME} env var, its identity in the Lease) and its log's name
     * @param apiServer the Kubernetes API server's URL, e.g. {@code http://127.0.0.1:34567}
     * @param env       further environment variables (the seed's names, or Quarkus/SmallRye keys)
     * @throws UncheckedIOException when the artifact cannot be started
     */
    public static PackagedOperator start(String name, String apiServer, Map<String, String> env) {
        return new PackagedOperator(name, direct(apiServer), env, null, DEFAULT_HEAP);
    }

    /**
     * Starts a replica whose JVM has this maximum heap (e.g. {@code 64m}) instead of the tests' usual
     * {@value #DEFAULT_HEAP}; the JVM build only (a native binary takes no {@code -Xmx} here).
     */
    public static PackagedOperator startWithHeap(String name, String apiServer, Map<String, String> env, String maxHeap) {
        return new PackagedOperator(name, direct(apiServer), env, null, maxHeap);
    }

    /**
     * Starts a replica in a working directory of its own, as the image runs it in {@code /deployments}: a
     * {@code config/application.properties} there (the mounted ConfigMap) is read above the built-in settings.
     */
    public static PackagedOperator startIn(Path workingDirectory, String name, String apiServer, Map<String, String> env) {
        return new PackagedOperator(name, direct(apiServer), env, workingDirectory, DEFAULT_HEAP);
    }

    /** fabric8's own configuration keys, as in a pod without a service account token. */
    private static Map<String, String> direct(String apiServer) {
        Map<String, String> connection = new LinkedHashMap<>();
        connection.put("KUBERNETES_MASTER", apiServer);
        connection.put("KUBERNETES_TRUST_CERTIFICATES", "true");
        connection.put("KUBERNETES_AUTH_TRYKUBECONFIG", "false");
        return connection;
    }

    /**
     * Starts a replica that reaches its API server through a kubeconfig file, as {@code kubectl} does (fabric8
     * reads the env var {@code KUBECONFIG}), optionally impersonating another user: fabric8 sends every request
     * with {@code Impersonate-User} when env var {@code KUBERNETES_IMPERSONATE_USERNAME} (system property
     * {@code kubernetes.impersonate.username}) is set, so a replica given an admin's kubeconfig acts with exactly
     * the rights RBAC grants that user, e.g. {@code system:serviceaccount:kube-queue:kube-queue-controller}.
     *
     * @param name        its pod name and its log's name, as in {@link #start(String, String, Map)}
     * @param kubeconfig  the kubeconfig file (its current context is used)
     * @param impersonate the user to act as, or null to act as the kubeconfig's own user
     * @param env         further environment variables
     * @throws UncheckedIOException when the artifact cannot be started
     */
    public static PackagedOperator startWithKubeconfig(String name, Path kubeconfig, String impersonate,
                                                       Map<String, String> env) {
        Map<String, String> connection = new LinkedHashMap<>();
        connection.put("KUBECONFIG", kubeconfig.toAbsolutePath().toString());
        connection.put("KUBERNETES_AUTH_TRYKUBECONFIG", "true");
        // no in-cluster token on a CI runner, and none should be picked up if there were one
        connection.put("KUBERNETES_AUTH_TRYSERVICEACCOUNT", "false");
        connection.put("KUBERNETES_TRUST_CERTIFICATES", "true");
        if (impersonate != null) {
            connection.put("KUBERNETES_IMPERSONATE_USERNAME", impersonate);
        }
        return new PackagedOperator(name, connection, env, null, DEFAULT_HEAP);
    }

    private PackagedOperator(String name, Map<String, String> connection, Map<String, String> env,
                             Path workingDirectory, String maxHeap) {
        this.name = name;
        this.port = freePort();
        this.managementPort = freePort();
        try {
            Path dir = Path.of("target", "packaged-tests");
            Files.createDirectories(dir);
            this.log = dir.resolve(name + ".log");
            ProcessBuilder builder = new ProcessBuilder(command(maxHeap)).redirectErrorStream(true)
                    .redirectOutput(log.toAbsolutePath().toFile());
            if (workingDirectory != null) {
                builder.directory(workingDirectory.toFile());
            }
            Map<String, String> e = builder.environment();
            // the runner's own Kubernetes settings, if any, must not leak into the replica
            e.keySet().removeIf(k -> k.startsWith("KUBERNETES_") || k.equals("KUBECONFIG"));
            e.putAll(connection);
            e.put("KUBERNETES_NAMESPACE", "kube-queue");
            e.put("HOSTNAME", name);
            e.put("POD_NAMESPACE", "kube-queue");
            e.put("POD_IP", "127.0.0.1"); // as the Deployment sets it: a leader publishes http://127.0.0.1:<port>
            e.put("QUARKUS_HTTP_PORT", Integer.toString(port));
            e.put("QUARKUS_MANAGEMENT_PORT", Integer.toString(managementPort)); // health and metrics
            e.putAll(env);
            this.process = builder.start();
        } catch (IOException ex) {
            throw new UncheckedIOException("cannot start the packaged operator " + artifact(), ex);
        }
    }

    private static List<String> command(String maxHeap) {
        Path artifact = artifact();
        if (!Files.isRegularFile(artifact)) {
            throw new IllegalStateException("no packaged artifact at " + artifact.toAbsolutePath()
                    + ": run ./mvnw verify (it packages before these tests)");
        }
        List<String> command = new ArrayList<>();
        if (artifact.toString().endsWith(".jar")) {
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            command.add("-Xmx" + maxHeap);
            command.add("-jar");
        }
        command.add(artifact.toAbsolutePath().toString());
        return command;
    }

    /**
     * An API server for replicas to talk to: the fabric8 mock server in CRUD mode, as strict as a real API server
     * about JSON Patch and status ({@link StrictApiServer}), plain HTTP on the loopback interface, its request log
     * quiet. The caller destroys it.
     */
    public static KubernetesMockServer mockApiServer() {
        return StrictApiServer.started();
    }

    /** The artifact under test: {@code kube-queue.it.artifact}, else the JVM build in {@code target/}. */
    public static Path artifact() {
        return Path.of(System.getProperty("kube-queue.it.artifact",
                "target" + File.separator + "quarkus-app" + File.separator + "quarkus-run.jar"));
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The replica's name (its identity in the Lease). */
    public String name() {
        return name;
    }

    /** Waits up to {@code timeout} for the process to end by itself; its exit code, or empty if it still runs. */
    public java.util.OptionalInt exitWithin(Duration timeout) {
        try {
            return process.waitFor(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)
                    ? java.util.OptionalInt.of(process.exitValue()) : java.util.OptionalInt.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return java.util.OptionalInt.empty();
        }
    }

    /** The process id (for {@code /proc/<pid>/status} on Linux). */
    public long pid() {
        return process.pid();
    }

    /** Whether the process still runs. */
    public boolean alive() {
        return process.isAlive();
    }

    /** Whether {@code /q/health/ready} answers 200 (false while it starts, recovers, or is gone). */
    public boolean ready() {
        return get("/q/health/ready").statusCode() == 200;
    }

    /**
     * The sum of one Prometheus series' samples whose labels contain {@code labelPart} (e.g.
     * {@code replica_role="leader"}; empty for all), read from {@code /q/metrics}; 0 when none is served.
     */
    public double metric(String series, String labelPart) {
        double sum = 0;
        for (String line : get("/q/metrics").body().split("\n")) {
            Matcher m = SAMPLE.matcher(line);
            if (m.matches() && m.group(1).equals(series)
                    && (labelPart.isEmpty() || (m.group(2) != null && m.group(2).contains(labelPart)))) {
                sum += Double.parseDouble(m.group(3));
            }
        }
        return sum;
    }

    /** The body of a GET on this replica's HTTP port (e.g. {@code /api/v1/queues}); empty if it did not answer 200. */
    public String body(String path) {
        Answer answer = get(path);
        return answer.statusCode() == 200 ? answer.body() : "";
    }

    /** Whether this replica reports itself the leader on {@code /q/metrics}. */
    public boolean leads() {
        return metric("kube_queue_replica", "replica_role=\"leader\"") == 1.0;
    }

    /** Admissions this replica wrote ({@code kube_queue_admissions_total}, every group). */
    public double admissions() {
        return metric("kube_queue_admissions_total", "");
    }

    /** The status of a GET on this replica's HTTP port sent without a bearer token; 0 if it did not answer. */
    public int statusWithoutToken(String path) {
        return get(path, false).statusCode();
    }

    /**
     * Lets the mock API server accept every token as user {@code it-reader}, allowed to list every kind in every
     * namespace: the read API's TokenReview and SubjectAccessReviews then pass, as for a cluster admin.
     */
    public static void acceptEveryReader(KubernetesMockServer server) {
        server.expect().post().withPath("/apis/authentication.k8s.io/v1/tokenreviews").andReturn(201,
                "{\"apiVersion\":\"authentication.k8s.io/v1\",\"kind\":\"TokenReview\",\"status\":"
                        + "{\"authenticated\":true,\"user\":{\"username\":\"it-reader\"}}}").always();
        server.expect().post().withPath("/apis/authorization.k8s.io/v1/subjectaccessreviews").andReturn(201,
                "{\"apiVersion\":\"authorization.k8s.io/v1\",\"kind\":\"SubjectAccessReview\",\"status\":"
                        + "{\"allowed\":true}}").always();
    }

    /** One answer of the replica's HTTP server; status 0 when it did not answer. */
    private record Answer(int statusCode, String body) {
    }

    private Answer get(String path) {
        return get(path, true);
    }

    /** A GET, with a bearer token (the read API as shipped wants one; see {@link #acceptEveryReader}) or without. */
    private Answer get(String path, boolean withToken) {
        try {
            // health and metrics are on the management port, the read API on the HTTP port (as in the Deployment)
            boolean management = path.startsWith("/q/health") || path.startsWith("/q/metrics");
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                            + (management ? managementPort : port) + path))
                    .timeout(Duration.ofSeconds(5));
            if (withToken) {
                request.header("Authorization", "Bearer packaged-it");
            }
            HttpResponse<String> r = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
            return new Answer(r.statusCode(), r.body());
        } catch (IOException e) {
            return new Answer(0, "");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Answer(0, "");
        }
    }

    /** Stops the replica as Kubernetes does a pod: SIGTERM, then waits for it to exit (graceful shutdown). */
    public int stop() {
        process.destroy();
        return waitForExit();
    }

    /** Sends SIGTERM, as Kubernetes does to a pod it stops, and returns at once (see {@link #exitWithin}). */
    public void terminate() {
        process.destroy();
    }

    /** Kills the replica at once (SIGKILL): no shutdown hook, no Lease release, as when a node dies. */
    public void kill() {
        process.destroyForcibly();
        waitForExit();
    }

    private int waitForExit() {
        try {
            if (!process.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor();
            }
            return process.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            return -1;
        }
    }

    /** The replica's output so far, for a failing test's message. */
    public String log() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** Where the replica's output is written. */
    public Path logFile() {
        return log;
    }

    /** This replica's read API as another replica reaches it, e.g. {@code http://127.0.0.1:34567}. */
    public String readApiUrl() {
        return "http://127.0.0.1:" + port;
    }

    /**
     * One answer of the read API: its status (0 when the replica did not answer), body and headers (names in
     * lower case, as the JDK's client gives them).
     */
    public record Reply(int status, String body, Map<String, List<String>> headers) {
        /** The first value of a header, or null. */
        public String header(String name) {
            List<String> values = headers.get(name.toLowerCase(java.util.Locale.ROOT));
            return values == null || values.isEmpty() ? null : values.get(0);
        }
    }

    /**
     * A request on this replica's HTTP port with a bearer token (see {@link #acceptEveryReader}).
     *
     * @param method      {@code GET} or {@code POST}
     * @param path        e.g. {@code /api/v1/jobs/default/a}
     * @param body        the body of a POST (e.g. a manifest for the dry run), or null for none
     * @param contentType its media type, e.g. {@code application/yaml}; ignored without a body
     */
    public Reply request(String method, String path, String body, String contentType) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(readApiUrl() + path))
                .timeout(Duration.ofSeconds(10)).header("Authorization", "Bearer packaged-it");
        if (body == null) {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            request.method(method, HttpRequest.BodyPublishers.ofString(body)).header("Content-Type", contentType);
        }
        try {
            HttpResponse<String> r = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
            return new Reply(r.statusCode(), r.body(), r.headers().map());
        } catch (IOException e) {
            return new Reply(0, "", Map.of());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Reply(0, "", Map.of());
        }
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            kill();
        }
    }

    @Override
    public String toString() {
        return name + " (port " + port + ", management port " + managementPort + ", log " + log + ")";
    }
}
