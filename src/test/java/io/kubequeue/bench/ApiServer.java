package io.kubequeue.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.internal.MockDispatcher;
import io.fabric8.mockwebserver.internal.SimpleRequest;
import io.fabric8.zjsonpatch.JsonPatchException;

/**
 * The API server one run talks to: a new embedded fabric8 mock server in CRUD mode per run (a fresh state), or
 * the cluster of a kubeconfig, cleared of the benchmark's jobs before each run.
 *
 * <p>The embedded server holds back its answer to every write (POST, PUT, PATCH, DELETE) by the write latency,
 * and to every GET that is not a watch by the read latency, with fabric8 mockwebserver's own
 * {@link MockResponse#setBodyDelay}: a Vert.x timer, so a delayed answer holds no thread and any number of
 * requests wait at once. The write itself is applied when the request arrives (watchers see it at once); only the
 * writer waits, as a client of a busy API server waits for its answer.
 *
 * <p><b>The write budget</b> ({@code --write-rate N}): every write of every client also takes the next slot of one
 * {@link WriteBudget} (N a second, a burst of 20 ms' worth, FIFO), and its answer is held for the latency plus its
 * wait for that slot. What this models: a real server's writes share one budget (etcd's commits, API Priority and
 * Fairness' seats), so a client that waits for its answers before sending more (kube-queue's admission pipeline,
 * the harness's {@link JobWriter}s, the probe: each has a bounded number in flight) is held to its share of N a
 * second, and any extra write (an Event) takes a slot another write would have had. What it does not model: APF's
 * separate queues per priority level and flow (here one FIFO queue for all, so a client's share follows its writes
 * in flight), its queue limits and 429 answers (here every write waits its turn, however long), and the time of
 * the effect: the write is applied, and seen by watchers, when it arrives, not at its slot. (fabric8's CRUD
 * dispatcher applies a write and notifies its watchers inside {@code dispatch}, which must answer at once on the
 * event loop; holding back only the notification would let a later write's event overtake an earlier one's, or
 * lose it. So a write's effect is early by its wait, never reordered; a client bounded in flight still cannot send
 * faster than the slots come.)
 *
 * <p>A JSON Patch that does not apply (a failed {@code test} op) is answered 422 with a Status and changes
 * nothing, as a real API server answers it; fabric8's CRUD dispatcher throws on it, and mockwebserver would then
 * never answer ({@code ApiServerRefusedPatchTest}).
 *
 * <p>The server counts the writes it receives by client and {@link WriteKind} ({@link WriteCounts}): the
 * harness's clients say who they are in their User-Agent ({@link #newClient(String)}), kube-queue by its token.
 */
final class ApiServer implements AutoCloseable {

    /** Batch Jobs have a status subresource on a real API server: status is written through {@code /status} only. */
    private static final List<CustomResourceDefinitionContext> STATUS_SUBRESOURCES = List.of(
            new CustomResourceDefinitionContext.Builder().withGroup("batch").withVersion("v1").withPlural("jobs")
                    .withKind("Job").withScope("Namespaced").withStatusSubresource(true).build());

    /** The bearer token kube-queue's process is given on the embedded server (not checked): how its writes are told apart. */
    static final String KUBE_QUEUE_TOKEN = "bench";

    private final KubernetesMockServer mock;
    private final MockWebServer web;
    private final LatencyDispatcher dispatcher;
    private final Path kubeconfig;
    private final Config config;
    private final KubernetesClient client;
    private final ScheduledExecutorService housekeeping;

    private ApiServer(KubernetesMockServer mock, MockWebServer web, LatencyDispatcher dispatcher, Path kubeconfig,
                      Config config) {
        this.mock = mock;
        this.web = web;
        this.dispatcher = dispatcher;
        this.kubeconfig = kubeconfig;
        this.config = config;
        this.client = newClient(WriteCounts.HARNESS);
        this.housekeeping = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "bench-server-housekeeping");
            t.setDaemon(true);
            return t;
        });
        if (web != null) {
            // mockwebserver keeps every request it served (with its body) for tests to inspect: drop them
            housekeeping.scheduleWithFixedDelay(web::reset, 1, 1, TimeUnit.SECONDS);
        }
    }

    /**
     * Starts a new embedded API server on the loopback interface.
     *
     * @param indexed      whether names are looked up in an index ({@link IndexedCrudDispatcher}) or by fabric8's scan
     * @param writeLatency delay of each answer to a POST, PUT, PATCH or DELETE
     * @param readLatency  delay of each answer to a GET that is not a watch
     * @param writeRate    the write budget, writes a second of all clients together ({@link WriteBudget}); 0 for none
     */
    static ApiServer embedded(boolean indexed, Duration writeLatency, Duration readLatency, int writeRate) {
        java.util.logging.Logger.getLogger("io.fabric8.mockwebserver").setLevel(java.util.logging.Level.WARNING);
        Map<ServerRequest, Queue<ServerResponse>> expectations = new HashMap<>();
        KubernetesCrudDispatcher crud = indexed ? new IndexedCrudDispatcher(STATUS_SUBRESOURCES)
                : new KubernetesCrudDispatcher(STATUS_SUBRESOURCES);
        MockWebServer web = new MockWebServer();
        LatencyDispatcher dispatcher = new LatencyDispatcher(expectations, crud, writeLatency, readLatency,
                writeRate > 0 ? WriteBudget.perSecond(writeRate) : null);
        KubernetesMockServer mock = new KubernetesMockServer(new Context(), web, expectations, dispatcher, false);
        mock.init(InetAddress.getLoopbackAddress(), 0);
        Config config = new ConfigBuilder(Config.empty())
                .withMasterUrl(mock.url("/"))
                .withTrustCerts(true)
                .withNamespace("default")
                .withRequestTimeout(60_000)
                .withMaxConcurrentRequests(4096)
                .build();
        return new ApiServer(mock, web, dispatcher, null, config);
    }

    /** The cluster of this kubeconfig (its current context). */
    static ApiServer cluster(Path kubeconfig) {
        try {
            Config config = new ConfigBuilder(Config.fromKubeconfig(Files.readString(kubeconfig)))
                    .withRequestTimeout(60_000)
                    .withMaxConcurrentRequests(4096)
                    .build();
            return new ApiServer(null, null, null, kubeconfig, config);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + kubeconfig, e);
        }
    }

    /** The harness's client ({@value WriteCounts#HARNESS}): set-up (blocking calls) and the watch. */
    KubernetesClient client() {
        return client;
    }

    /**
     * A client of its own, with its own HTTP connection pool, for one stream of non-blocking writes; the caller
     * closes it. (Vert.x's pool looks through its connections on every request, so one pool holding the hundreds
     * of connections of every stream at once costs the harness more CPU than several smaller ones.) Its writes are
     * counted as the harness's ({@value WriteCounts#HARNESS}).
     */
    KubernetesClient newClient() {
        return newClient(WriteCounts.HARNESS);
    }

    /**
     * The same, for a client the server counts apart: its User-Agent is {@value WriteCounts#AGENT_PREFIX}{@code
     * <client>} (harmless on a cluster, where it shows in the audit log).
     */
    KubernetesClient newClient(String client) {
        return new KubernetesClientBuilder().withConfig(new ConfigBuilder(config)
                .withUserAgent(WriteCounts.AGENT_PREFIX + client).build()).build();
    }

    /**
     * The writes counted so far and what the write budget has done, or null on a cluster (which cannot count them
     * for us). Subtract an earlier reading ({@link WriteFigures#since}) for a window.
     */
    WriteFigures writes() {
        if (dispatcher == null) {
            return null;
        }
        return new WriteFigures(dispatcher.counts.tally(), dispatcher.budget == null ? null : dispatcher.budget.figures(),
                dispatcher.budget == null ? 0 : dispatcher.budget.perSecond());
    }

    /** The write budget, writes a second: 0 for none, -1 on a cluster (whose own budget is unknown here). */
    int writeRate() {
        return dispatcher == null ? -1 : dispatcher.budget == null ? 0 : dispatcher.budget.perSecond();
    }

    /** Whether this is the embedded server (a fresh one per run) rather than a cluster. */
    boolean embedded() {
        return mock != null;
    }

    /**
     * How kube-queue reaches this server: fabric8's env vars with a bearer token (not checked), as in a pod
     * (embedded), or the kubeconfig.
     */
    Map<String, String> kubeQueueEnv() {
        Map<String, String> env = new LinkedHashMap<>();
        if (mock != null) {
            env.put("KUBERNETES_MASTER", client.getConfiguration().getMasterUrl());
            env.put("KUBERNETES_TRUST_CERTIFICATES", "true");
            env.put("KUBERNETES_AUTH_TRYKUBECONFIG", "false");
            // a pod always has a token; without one fabric8 re-reads its whole configuration (env, files) before
            // every request looking for one, a cost no cluster has (3 % of kube-queue's CPU in a profile)
            // (and the token is how the server tells kube-queue's writes apart: WriteCounts)
            env.put("KUBERNETES_AUTH_TOKEN", KUBE_QUEUE_TOKEN);
        } else {
            env.put("KUBECONFIG", kubeconfig.toString());
            env.put("KUBERNETES_AUTH_TRYKUBECONFIG", "true");
        }
        env.put("KUBERNETES_AUTH_TRYSERVICEACCOUNT", "false");
        return env;
    }

    /**
     * On a cluster: deletes the benchmark's jobs (label {@link Load#LABEL_LOAD}) in the given namespaces and waits
     * until they are gone. Nothing to do on the embedded server, which is new for each run.
     */
    void clear(List<String> namespaces, Duration timeout) {
        if (mock != null) {
            return;
        }
        for (String ns : namespaces) {
            if (client.namespaces().withName(ns).get() != null) {
                client.batch().v1().jobs().inNamespace(ns).withLabel(Load.LABEL_LOAD)
                        .withPropagationPolicy(DeletionPropagation.BACKGROUND).delete();
            }
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!client.batch().v1().jobs().inAnyNamespace().withLabel(Load.LABEL_LOAD).list().getItems().isEmpty()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the benchmark's jobs of an earlier run are still there after " + timeout);
            }
            sleep(500);
        }
    }

    /**
     * CPU time used so far by the threads that served requests (the mock server's Vert.x event loop: HTTP, the CRUD
     * store, the watch events), nanoseconds; -1 for a cluster. Between two readings ÷ the wall time between them,
     * it says how busy the server was: 1 core is all one event loop can give.
     */
    long serverCpuNanos() {
        if (dispatcher == null) {
            return -1;
        }
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long sum = 0;
        for (long id : dispatcher.threads) {
            long t = threads.getThreadCpuTime(id);
            if (t > 0) {
                sum += t;
            }
        }
        return sum;
    }

    String describe() {
        return mock != null ? "embedded fabric8 mock server (CRUD mode) at " + client.getConfiguration().getMasterUrl()
                + (dispatcher.budget == null ? ", no write budget" : ", write budget " + dispatcher.budget.perSecond()
                + " writes/s (burst " + dispatcher.budget.burst() + ")")
                : "the cluster of " + kubeconfig + " (" + client.getConfiguration().getMasterUrl() + ")";
    }

    /** Ends the embedded server (each run has its own); a cluster stays connected until {@link #dispose}. */
    @Override
    public void close() {
        if (mock != null) {
            dispose();
        }
    }

    /** Closes the client and, if embedded, stops the server. */
    void dispose() {
        housekeeping.shutdownNow();
        client.close();
        if (mock != null) {
            mock.destroy();
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /**
     * Expectations first (the mock server's own {@code /} and {@code /version}), then the CRUD store; every
     * answer but a watch is held back by the latency of its kind, on a timer (mockwebserver's body delay), and a
     * write's also by its wait for a slot of the budget; every write to the store is counted by client and kind.
     */
    private static final class LatencyDispatcher extends Dispatcher {

        private final Map<ServerRequest, Queue<ServerResponse>> expectations;
        private final MockDispatcher expected;
        private final KubernetesCrudDispatcher crud;
        private final Duration writeLatency;
        private final Duration readLatency;
        /** The write budget, or null for none. */
        final WriteBudget budget;
        final WriteCounts counts = new WriteCounts();
        /** The ids of the threads that have served a request. */
        final Set<Long> threads = ConcurrentHashMap.newKeySet();

        LatencyDispatcher(Map<ServerRequest, Queue<ServerResponse>> expectations, KubernetesCrudDispatcher crud,
                          Duration writeLatency, Duration readLatency, WriteBudget budget) {
            this.expectations = expectations;
            this.expected = new MockDispatcher(expectations);
            this.crud = crud;
            this.writeLatency = writeLatency;
            this.readLatency = readLatency;
            this.budget = budget;
        }

        /** A real API server's answer to a JSON Patch that does not apply: 422, a Status saying why. */
        private static MockResponse unprocessable(String message) {
            Status status = new StatusBuilder().withStatus("Failure").withReason("Invalid").withCode(422)
                    .withMessage("the JSON Patch does not apply: " + message).build();
            return new MockResponse().setResponseCode(422)
                    .setBody(io.fabric8.kubernetes.client.utils.Serialization.asJson(status));
        }

        /** The body as text, left in place for the store (RecordedRequest.getUtf8Body reads it away). */
        private static String body(RecordedRequest request) {
            return request.getBody() == null ? null
                    : new String(request.getBody().getBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }

        @Override
        public MockResponse dispatch(RecordedRequest request) {
            threads.add(Thread.currentThread().getId());
            Queue<ServerResponse> queued = expectations.get(
                    new SimpleRequest(HttpMethod.valueOf(request.getMethod()), request.getPath()));
            if (queued != null && !queued.isEmpty()) {
                return expected.dispatch(request);
            }
            String method = request.getMethod();
            boolean write = WriteKind.WRITES.contains(method);
            long delayNanos = (write ? writeLatency : readLatency).toNanos();
            if (write) {
                // its slot is taken on arrival, in arrival order; the store applies it at once (class comment)
                counts.count(WriteCounts.clientOf(request.getHeader("User-Agent"), request.getHeader("Authorization")),
                        WriteKind.of(method, request.getPath(), "PATCH".equals(method) ? body(request) : null));
                if (budget != null) {
                    delayNanos += budget.take();
                }
            }
            MockResponse response;
            try {
                response = crud.dispatch(request);
            } catch (JsonPatchException e) {
                // fabric8's CRUD dispatcher throws on a JSON Patch that does not apply (a failed test op, a
                // missing path), and mockwebserver then never answers: the client waits out its request timeout.
                // A real API server answers 422 and changes nothing (../shared/reference/real-apiserver.md).
                response = unprocessable(e.getMessage());
            }
            if (response.getWebSocketListener() != null) {
                return response; // a watch: its events are never delayed
            }
            // whole milliseconds, rounded up: Vert.x's timer refuses less than 1 ms, and a slot is never answered early
            long millis = (delayNanos + 999_999) / 1_000_000;
            if (millis > 0) {
                response.setBodyDelay(Duration.ofMillis(millis));
            }
            return response;
        }
    }
}
