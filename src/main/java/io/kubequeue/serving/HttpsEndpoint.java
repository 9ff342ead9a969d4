package io.kubequeue.serving;

import java.nio.file.Path;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.X509TrustManager;

import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;

import org.jboss.logging.Logger;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubequeue.api.ReadApiAccess;
import io.kubequeue.config.KubeQueueConfig;
import io.kubequeue.input.JsonBounds;
import io.kubequeue.job.DryRuns;
import io.kubequeue.job.JobFeed;
import io.kubequeue.leader.Leadership;
import io.kubequeue.leader.ReadApiLeaderAddress;
import io.kubequeue.quota.WhatIfs;
import io.kubequeue.scheduler.Forecasting;
import io.kubequeue.scheduler.ReadViews;
import io.kubequeue.visibility.Caller;
import io.kubequeue.visibility.FrontProxy;
import io.kubequeue.visibility.VisibilityAccess;
import io.kubequeue.visibility.VisibilityApi;
import io.kubequeue.webhook.SuspendAtCreation;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.core.net.SSLOptions;
import io.vertx.core.net.TrustOptions;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;

/**
 * kube-queue's HTTPS port ({@code kube-queue.serving.*}, docs/visibility.md): the aggregated visibility API
 * ({@code /apis/visibility.kube-queue.io/…}) and the mutating admission webhook
 * ({@code POST /webhooks/suspend-at-creation}), both called by the API server.
 * <ul>
 *   <li><b>TLS</b>: the certificate of {@link CertificateSource}, re-read every {@link #REFRESH} and swapped in
 *       without a restart; a client certificate is asked for, not required (the API server calls webhooks without
 *       one), and checked by whoever reads it: {@link FrontProxy} for the API server's front proxy, this class for a
 *       peer replica.</li>
 *   <li><b>Who calls</b>: the front proxy's request headers, believed as {@link FrontProxy} says; or, from a peer
 *       replica presenting the serving certificate itself (every replica holds it), the same headers naming the caller
 *       the peer authenticated. Anyone else is 401.</li>
 *   <li><b>One answer per cluster</b>: only the leader knows positions, backoffs and holds, so a follower forwards an
 *       authenticated visibility call to the leader's HTTPS port (the leader's host from the Lease, this port),
 *       presenting the serving certificate and trusting only kube-queue's CA; while no leader is known it answers
 *       503 with {@code Retry-After: 1}. A forwarded call is never forwarded again.</li>
 *   <li><b>The webhook</b> answers on any replica ({@link SuspendAtCreation}: stateless but for the quota tree,
 *       which every replica reads).</li>
 * </ul>
 * Started as a start-up step before readiness (so the port listens when the Service routes to the pod), stopped with
 * the others. A certificate that cannot be had is logged once and tried again every {@link #REFRESH}; queueing goes on.
 */
@Singleton
public class HttpsEndpoint {

    private static final Logger LOG = Logger.getLogger(HttpsEndpoint.class);
    /** How often the certificate, the CA bundles and the front-proxy settings are read again. */
    static final Duration REFRESH = Duration.ofMinutes(1);
    /** The webhook's path. */
    public static final String WEBHOOK_PATH = "/webhooks/suspend-at-creation";
    /** Where {@link #authenticate} leaves the caller and whether a peer replica named them, on the call. */
    private static final String CALLER = "kube-queue.caller";
    private static final String FROM_PEER = "kube-queue.from-peer";
    /** Response header: the identity of the replica whose scheduler gave the answer. */
    static final String ANSWERED_BY = "X-Kube-Queue-Answered-By";
    /** Request header of a call a follower forwarded: its identity. */
    static final String FORWARDED_BY = "X-Kube-Queue-Forwarded-By";
    /** The largest body read: an AdmissionReview carries a job (at most 1.5 MiB in etcd) and, on update, its old copy. */
    static final int LONGEST_BODY = 4 * 1024 * 1024;
    /**
     * The most header bytes read per request: the API server names each of the caller's groups and extra values in a
     * header of its own, and FrontProxy reads up to 256 of each ({@code FrontProxy.MAX_VALUES}), so room for 512
     * headers of 512 bytes. Vert.x's default, 8 KiB, answered 431 to a user in some 150 groups.
     */
    static final int LONGEST_HEADERS = 256 * 1024;
    private static final long FORWARD_WAIT_MILLIS = 5_000;
    private static final long RETRY_MILLIS = 250;

    private final Vertx vertx;
    private final Clock clock;
    private final KubeQueueConfig.Serving settings;
    private final KubernetesClient reviewClient;
    private final Leadership leadership;
    private final ReadApiLeaderAddress leaderAddress;
    private final CertificateSource certificates;
    private final CaBundles caBundles;
    private final VisibilityApi api;
    private final SuspendAtCreation webhook;
    private final MeterRegistry registry;
    private final ObjectMapper json = JsonBounds.apply(new ObjectMapper());

    private final AtomicReference<FrontProxy> frontProxy = new AtomicReference<>(FrontProxy.none());
    /**
     * How long the key served before a renewal is still a peer's: every replica reads the certificate again within
     * {@link #REFRESH}, and a pass may run late. After that it is nobody's, so a renewal (deleting the Secret) retires
     * a leaked key.
     */
    static final Duration PREVIOUS_KEY_KEPT = REFRESH.multipliedBy(2);

    /**
     * The certificate served now, the one before it and until when that one still counts (a peer may hold it while
     * the replicas swap), with their public keys read once: one value, swapped whole, so a call never sees half of a
     * renewal.
     *
     * @param now          served now
     * @param nowKey       its public key
     * @param before       served before it; null if none
     * @param beforeKey    its public key; null if none
     * @param beforeUntil  until when {@code before} is a peer's and its CA told to the API server
     */
    private record Served(ServingCertificate now, java.security.PublicKey nowKey, ServingCertificate before,
                          java.security.PublicKey beforeKey, java.time.Instant beforeUntil) {

        static Served first(ServingCertificate now) {
            return new Served(now, now.leaf().getPublicKey(), null, null, java.time.Instant.MIN);
        }

        Served renewedTo(ServingCertificate next, java.time.Instant beforeUntil) {
            return new Served(next, next.leaf().getPublicKey(), now, nowKey, beforeUntil);
        }
    }

    /** Null until a certificate is served. */
    private volatile Served served;
    private volatile HttpServer server;
    private volatile HttpClient peers;
    private volatile long timer = -1;
    /**
     * The webhook's own threads: its answers never wait behind visibility calls, whose reviews can be slow, on the
     * shared worker pool (the API server gives a webhook 5 s, then, with failurePolicy Ignore, creates the job as sent).
     */
    private final io.vertx.core.WorkerExecutor webhookWorkers;
    private final Map<String, String> logged = new HashMap<>();

    @jakarta.inject.Inject
    public HttpsEndpoint(Vertx vertx, KubeQueueConfig config, KubernetesClient client, ReadViews scheduler,
                         DryRuns dryRuns, Forecasting forecasts, WhatIfs whatIfs, JobFeed feed, Leadership leadership,
                         ReadApiLeaderAddress leaderAddress, MeterRegistry registry) {
        this(vertx, config, client, scheduler, dryRuns, forecasts, whatIfs, feed, leadership, leaderAddress, registry,
                Clock.systemUTC());
    }

    /** @param clock when the key served before a renewal stops being a peer's ({@link #PREVIOUS_KEY_KEPT}) */
    HttpsEndpoint(Vertx vertx, KubeQueueConfig config, KubernetesClient client, ReadViews scheduler,
                  DryRuns dryRuns, Forecasting forecasts, WhatIfs whatIfs, JobFeed feed, Leadership leadership,
                  ReadApiLeaderAddress leaderAddress, MeterRegistry registry, Clock clock) {
        this.clock = clock;
        this.vertx = vertx;
        this.settings = config.serving();
        if (settings.port() < 0 || settings.port() > 65_535) {
            throw new IllegalArgumentException("kube-queue.serving.port (KUBE_QUEUE_SERVING_PORT): must be a TCP port,"
                    + " 1 to 65535 (0: any free port, for tests); got " + settings.port());
        }
        this.leadership = leadership;
        this.leaderAddress = leaderAddress;
        this.registry = registry;
        this.webhookWorkers = vertx.createSharedWorkerExecutor("kube-queue-webhook", 2);
        this.reviewClient = ReadApiAccess.withoutRetries(client);
        this.certificates = new CertificateSource(client, settings.certFile().map(Path::of),
                settings.keyFile().map(Path::of), leadership.namespace(), settings.secret(), settings.service(), clock);
        this.caBundles = new CaBundles(client, settings.apiService(), settings.webhookConfiguration());
        this.api = new VisibilityApi(scheduler, new VisibilityAccess(reviewClient, config.readApi().cacheFor(), clock),
                dryRuns, config.estimates().enabled() ? forecasts : null, whatIfs, clock);
        java.util.function.Predicate<String> selected = SuspendAtCreation.selected(settings.suspendAtCreationInNames(),
                namespace -> scheduler.tree().lists(namespace));
        this.webhook = new SuspendAtCreation((kind, namespace) -> feed.enabled(kind) && feed.watches(namespace)
                && selected.test(namespace));
        for (String outcome : List.of("suspended", "allowed", "refused")) {
            webhookCounter(outcome); // at 0 from the start
        }
        for (String route : VisibilityApi.ROUTES) {
            for (int code : List.of(200, 401, 403, 404, 503)) {
                answerCounter(route, code);
            }
        }
    }

    /** Starts trying: reads the certificate and listens once it has one; never blocks start-up on it. */
    public void start() {
        if (!settings.enabled()) {
            return;
        }
        vertx.executeBlocking(() -> {
            refresh();
            return null;
        }, false);
        timer = vertx.setPeriodic(REFRESH.toMillis(), t -> vertx.executeBlocking(() -> {
            refresh();
            return null;
        }, false));
    }

    /** Stops listening. */
    @PreDestroy
    public void stop() {
        if (timer >= 0) {
            vertx.cancelTimer(timer);
            timer = -1;
        }
        HttpServer s = server;
        server = null;
        if (s != null) {
            s.close();
        }
        HttpClient p = peers;
        peers = null;
        if (p != null) {
            p.close();
        }
        webhookWorkers.close();
    }

    /** The port it listens on, once it does (the setting's, or the one bound when the setting is 0). */
    public Optional<Integer> port() {
        HttpServer s = server;
        return s == null ? Optional.empty() : Optional.of(s.actualPort());
    }

    /**
     * One pass: the certificate (made or renewed when needed, swapped in when it changed), the CA bundles when the
     * certificate is kube-queue's own, and the front-proxy settings. Blocking: on a worker thread.
     */
    public synchronized void refresh() {
        try {
            ServingCertificate now = certificates.current();
            Served before = served;
            boolean changed = before == null || !before.now().certificatePem().equals(now.certificatePem());
            if (changed || server == null) { // not listening: a listen that failed (port taken) is tried again
                swapIn(now);
                if (changed) { // only once it is served: a pass that failed to serve it swaps it in again
                    served = before == null ? Served.first(now)
                            : before.renewedTo(now, clock.instant().plus(PREVIOUS_KEY_KEPT));
                }
            }
            problem("certificate", null);
            if (certificates.selfSigned()) {
                CaBundles.Outcome o = caBundles.write(trustedCas(now));
                o.written().forEach(w -> LOG.infof("serving: wrote kube-queue's CA into %s", w));
                problem("bundle-missing", o.missing().isEmpty() ? null : "serving: " + String.join(", ", o.missing())
                        + " not found: the API server does not call kube-queue there until it is installed"
                        + " (docs/visibility.md)");
                problem("bundle-failed", o.failures().isEmpty() ? null : "serving: cannot write kube-queue's CA into "
                        + String.join(", ", o.failures()) + ": grant kube-queue get and patch on it (docs/install.md,"
                        + " RBAC)");
            }
        } catch (RuntimeException e) {
            problem("certificate", "serving: no certificate, the HTTPS port " + settings.port() + " does not listen"
                    + " yet: " + e.getMessage() + "; trying again every " + REFRESH.toSeconds() + " s");
        }
        try {
            ConfigMap auth = reviewClient.configMaps().inNamespace(FrontProxy.CONFIG_MAP_NAMESPACE)
                    .withName(FrontProxy.CONFIG_MAP_NAME).get();
            frontProxy.set(auth == null || auth.getData() == null ? FrontProxy.none() : FrontProxy.of(auth.getData()));
            problem("front-proxy", frontProxy.get().trustsSomeone() ? null : "serving: ConfigMap "
                    + FrontProxy.CONFIG_MAP_NAMESPACE + "/" + FrontProxy.CONFIG_MAP_NAME + " names no request-header"
                    + " CA: every visibility API call is 401 until it does");
        } catch (RuntimeException e) { // keep what was read last: a blip must not turn every caller away
            problem("front-proxy", "serving: cannot read ConfigMap " + FrontProxy.CONFIG_MAP_NAMESPACE + "/"
                    + FrontProxy.CONFIG_MAP_NAME + " (" + e.getMessage() + "): bind kube-queue to Role"
                    + " extension-apiserver-authentication-reader in kube-system (docs/install.md, RBAC)");
        }
    }

    /**
     * The CAs the API server is told to trust (PEM): the one that signs the certificate served now and, for
     * {@link #PREVIOUS_KEY_KEPT} after a renewal that made a new CA, the one before, which signs what the other
     * replicas serve until they swap.
     */
    private String trustedCas(ServingCertificate now) {
        Served s = served;
        ServingCertificate before = s == null ? null : s.before();
        if (before == null || before.caPem() == null || before.caPem().equals(now.caPem())
                || !clock.instant().isBefore(s.beforeUntil())) {
            return now.caPem();
        }
        return now.caPem() + (now.caPem().endsWith("\n") ? "" : "\n") + before.caPem();
    }

    /** Logs a problem once until it changes, and its end once. */
    private void problem(String key, String message) {
        String before = logged.get(key);
        if (message == null) {
            if (before != null) {
                logged.remove(key);
                LOG.infof("serving: resolved: %s", before);
            }
        } else if (!message.equals(before)) {
            logged.put(key, message);
            LOG.warn(message);
        }
    }

    private void swapIn(ServingCertificate c) {
        PemKeyCertOptions keyCert = new PemKeyCertOptions().setCertValue(Buffer.buffer(c.certificatePem()))
                .setKeyValue(Buffer.buffer(c.keyPem()));
        HttpClient oldPeers = peers;
        HttpClientOptions peerOptions = new HttpClientOptions().setSsl(true).setVerifyHost(false) // a pod IP: the pinned CA identifies the leader
                .setKeyCertOptions(keyCert).setConnectTimeout(2_000).setIdleTimeout(60);
        String trusted = c.caPem() != null ? c.caPem() : c.certificatePem();
        peerOptions.setTrustOptions(new PemTrustOptions().addCertValue(Buffer.buffer(trusted)));
        // bounded as the read API's forward: past 64 calls waiting for a connection to the leader, the next is a 503
        peers = vertx.createHttpClient(peerOptions, new io.vertx.core.http.PoolOptions().setHttp1MaxSize(16)
                .setMaxWaitQueueSize(64));
        if (oldPeers != null) {
            oldPeers.close();
        }
        HttpServer s = server;
        if (s != null) {
            s.updateSSLOptions(new SSLOptions().setKeyCertOptions(keyCert).setTrustOptions(trustOptions()));
            LOG.infof("serving: now serving the certificate from %s (valid until %s)", certificates.describe(),
                    c.leaf().getNotAfter().toInstant());
            return;
        }
        HttpServerOptions options = new HttpServerOptions().setSsl(true).setPort(settings.port())
                .setKeyCertOptions(keyCert).setClientAuth(ClientAuth.REQUEST).setTrustOptions(trustOptions())
                .setMaxHeaderSize(LONGEST_HEADERS);
        HttpServer created = vertx.createHttpServer(options).requestHandler(router());
        created.listen().toCompletionStage().toCompletableFuture().join();
        server = created;
        LOG.infof("serving: HTTPS on port %d (visibility API %s, webhook %s), certificate from %s", created.actualPort(),
                VisibilityApi.PREFIX, WEBHOOK_PATH, certificates.describe());
    }

    /**
     * Any client certificate is taken at the handshake and judged per request (the request-header CA can change at
     * run time, as in k8s.io/apiserver); the issuers offered are the request-header CA and kube-queue's own.
     */
    private TrustOptions trustOptions() {
        return TrustOptions.wrap(new X509TrustManager() {
            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType) {
                // judged per request: FrontProxy, or the peer-replica check
            }

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType) {
                throw new UnsupportedOperationException("a server's trust manager checks no server");
            }

            @Override
            public X509Certificate[] getAcceptedIssuers() {
                List<X509Certificate> issuers = new ArrayList<>(frontProxy.get().issuers());
                Served s = served;
                ServingCertificate c = s == null ? null : s.now();
                if (c != null) {
                    issuers.addAll(c.caPem() != null ? c.caCertificates() : List.of(c.leaf()));
                }
                return issuers.toArray(X509Certificate[]::new);
            }
        });
    }

    private Router router() {
        Router router = Router.router(vertx);
        router.get("/healthz").handler(rc -> rc.response().end("ok"));
        router.get("/livez").handler(rc -> rc.response().end("ok"));
        router.get("/readyz").handler(rc -> rc.response().end("ok"));
        router.post(WEBHOOK_PATH).handler(BodyHandler.create(false).setBodyLimit(LONGEST_BODY)).handler(this::webhook);
        // who calls is known before any body is read: an unknown caller costs no buffered body. Two routes, since
        // Vert.x takes a body handler only first on its route; /apis* is one pattern, so each runs once per call
        router.route("/apis*").handler(this::count).handler(this::authenticate);
        router.route("/apis*").handler(BodyHandler.create(false).setBodyLimit(LONGEST_BODY)).handler(this::answer);
        router.route().last().handler(rc -> reply(rc, VisibilityApi.status(404, "NotFound",
                "the server could not find the requested resource")));
        return router;
    }

    // ---- the webhook ----

    private void webhook(RoutingContext rc) {
        Buffer body = rc.body().buffer();
        webhookWorkers.executeBlocking(() -> {
            JsonNode review = json.readTree(body == null ? new byte[0] : body.getBytes());
            return webhook.answer(review);
        }, false).onComplete(done -> {
            if (done.failed()) {
                webhookCounter("refused").increment();
                reply(rc, VisibilityApi.status(400, "BadRequest", "not an AdmissionReview with a request: "
                        + brief(done.cause())));
                return;
            }
            JsonNode answer = done.result();
            webhookCounter(answer.path("response").has("patch") ? "suspended" : "allowed").increment();
            rc.response().putHeader("Content-Type", "application/json").end(answer.toString());
        });
    }

    private Counter webhookCounter(String outcome) {
        return Counter.builder("kube_queue_webhook_answers")
                .description("AdmissionReviews the suspend-at-creation webhook answered (suspended: created"
                        + " suspended; allowed: left as sent; refused: not a review, answered 400)")
                .tag("outcome", outcome).register(registry);
    }

    private Counter answerCounter(String route, int code) {
        return Counter.builder("kube_queue_visibility_answers")
                .description("Visibility API answers, by route (discovery, pendingjobs, quotagroups,"
                        + " quotagroup_pendingjobs, dryruns, whatifs, other) and HTTP status code, counted on the replica the"
                        + " API server called (a call forwarded to the leader is counted once, with its answer)")
                .tag("route", route).tag("code", Integer.toString(code)).register(registry);
    }

    // ---- the visibility API ----

    /** Counts the answer by route and code, unless a follower forwarded the call (it counts it itself). */
    private void count(RoutingContext rc) {
        if (!forwardedByPeer(rc, isPeerReplica(peerCertificates(rc)))) {
            String route = VisibilityApi.route(rc.request().path());
            rc.addHeadersEndHandler(v -> answerCounter(route, rc.response().getStatusCode()).increment());
        }
        rc.next();
    }

    /**
     * Who calls: from a peer replica, the caller it names; else the front proxy's (see the class comment). Stored
     * on the call ({@link #CALLER}, {@link #FROM_PEER}); anyone else gets 401 here, before any body is read.
     */
    private void authenticate(RoutingContext rc) {
        List<Certificate> peer = peerCertificates(rc);
        Function<String, List<String>> headers = name -> rc.request().headers().getAll(name);
        boolean fromPeer = isPeerReplica(peer);
        FrontProxy.Authenticated who = fromPeer ? FrontProxy.forwarded(headers, rc.request().headers().names())
                : frontProxy.get().authenticate(peer, headers, rc.request().headers().names());
        if (who.caller().isEmpty()) {
            reply(rc, VisibilityApi.unauthorized(who.why()));
            return;
        }
        rc.put(CALLER, who.caller().get());
        rc.put(FROM_PEER, fromPeer);
        rc.next();
    }

    /** The client's certificate chain, leaf first; empty if it sent none. */
    private static List<Certificate> peerCertificates(RoutingContext rc) {
        try {
            return rc.request().connection().peerCertificates();
        } catch (SSLPeerUnverifiedException | RuntimeException e) {
            return List.of();
        }
    }

    /**
     * Whether a follower forwarded the call ({@link #FORWARDED_BY} from a peer replica). The API server passes a
     * caller's own headers on, so the header from anyone else is theirs and means nothing.
     */
    private static boolean forwardedByPeer(RoutingContext rc, boolean fromPeer) {
        return fromPeer && rc.request().getHeader(FORWARDED_BY) != null;
    }

    /** Answers an authenticated call here, if this replica leads (or it is discovery); else forwards it. */
    private void answer(RoutingContext rc) {
        Caller caller = rc.get(CALLER);
        boolean forwarded = forwardedByPeer(rc, Boolean.TRUE.equals(rc.get(FROM_PEER)));
        if (!leadership.isLeader() && !discovery(rc.request().path())) {
            if (forwarded) {
                unavailable(rc, "replica " + leadership.identity() + " was forwarded this call but does not lead (any"
                        + " more); try again");
            } else {
                forward(rc, caller, System.nanoTime() + FORWARD_WAIT_MILLIS * 1_000_000);
            }
            return;
        }
        Map<String, List<String>> query = new LinkedHashMap<>();
        rc.queryParams().forEach(e -> query.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(e.getValue()));
        VisibilityApi.Request request = new VisibilityApi.Request(rc.request().method().name(), rc.request().path(),
                query, rc.request().getHeader("Accept"), rc.body().asString());
        rc.response().putHeader(ANSWERED_BY, leadership.identity());
        vertx.executeBlocking(() -> api.answer(caller, request), false).onComplete(done -> reply(rc,
                done.succeeded() ? done.result()
                        : VisibilityApi.status(500, "InternalError", "kube-queue failed: " + brief(done.cause()))));
    }

    /** Discovery is the same on every replica: answered where it is asked (the aggregator asks it every few seconds). */
    private static boolean discovery(String path) {
        return path.equals("/apis") || path.equals("/apis/") || path.equals("/apis/" + VisibilityApi.GROUP)
                || path.equals(VisibilityApi.PREFIX) || path.equals(VisibilityApi.PREFIX + "/");
    }

    /**
     * Whether the client's certificate is the serving certificate (now, or before a renewal for
     * {@link #PREVIOUS_KEY_KEPT}): another replica.
     */
    private boolean isPeerReplica(List<Certificate> peer) {
        Served s = served;
        if (peer.isEmpty() || s == null) {
            return false;
        }
        java.security.PublicKey key = peer.get(0).getPublicKey();
        return s.nowKey().equals(key)
                || key.equals(s.beforeKey()) && clock.instant().isBefore(s.beforeUntil());
    }

    private void forward(RoutingContext rc, Caller caller, long deadline) {
        if (rc.response().closed() || rc.response().ended()) {
            return;
        }
        if (leadership.isLeader()) {
            answer(rc); // leads now: answers itself
            return;
        }
        vertx.executeBlocking(leaderAddress::leader, false).onComplete(found -> {
            Optional<ReadApiLeaderAddress.Leader> leader = found.succeeded() ? found.result().leader() : Optional.empty();
            HttpClient client = peers;
            if (leader.isEmpty() || leader.get().identity().equals(leadership.identity()) || client == null) {
                later(rc, caller, deadline, found.succeeded() ? found.result().why() : String.valueOf(found.cause()));
                return;
            }
            String host = leader.get().url().getHost();
            RequestOptions options = new RequestOptions().setMethod(rc.request().method())
                    .setHost(host).setPort(leader.get().servingPort() > 0 ? leader.get().servingPort() : settings.port())
                    .setURI(rc.request().uri())
                    .setIdleTimeout(10_000).putHeader(FORWARDED_BY, leadership.identity());
            FrontProxy.forwardHeaders(caller).forEach((name, values) -> options.putHeader(name,
                    List.<CharSequence>copyOf(values)));
            for (String name : List.of("Accept", "Content-Type")) {
                String value = rc.request().getHeader(name);
                if (value != null) {
                    options.putHeader(name, value);
                }
            }
            Buffer body = rc.body().buffer();
            client.request(options).compose(r -> body == null ? r.send() : r.send(body)).onComplete(answered -> {
                if (answered.failed()) {
                    later(rc, caller, deadline, "the leader " + leader.get().identity() + " did not answer: "
                            + answered.cause().getMessage());
                    return;
                }
                answered.result().body().onComplete(b -> {
                    HttpServerResponse out = rc.response();
                    if (out.ended() || out.closed()) {
                        return;
                    }
                    out.setStatusCode(answered.result().statusCode());
                    for (String name : List.of("Content-Type", ANSWERED_BY, "Retry-After")) {
                        String value = answered.result().getHeader(name);
                        if (value != null) {
                            out.putHeader(name, value);
                        }
                    }
                    out.end(b.succeeded() ? b.result() : Buffer.buffer());
                });
            });
        });
    }

    private void later(RoutingContext rc, Caller caller, long deadline, String why) {
        if (System.nanoTime() + RETRY_MILLIS * 1_000_000 < deadline) {
            vertx.setTimer(RETRY_MILLIS, t -> forward(rc, caller, deadline));
        } else {
            unavailable(rc, "no replica leads now; try again (" + why + ")");
        }
    }

    private static void unavailable(RoutingContext rc, String message) {
        if (!rc.response().ended() && !rc.response().closed()) {
            rc.response().putHeader("Retry-After", "1");
            reply(rc, VisibilityApi.status(503, "ServiceUnavailable", message));
        }
    }

    private static void reply(RoutingContext rc, VisibilityApi.Reply reply) {
        HttpServerResponse out = rc.response();
        if (out.ended() || out.closed()) {
            return;
        }
        out.setStatusCode(reply.status()).putHeader("Content-Type", "application/json").end(reply.body().toString());
    }

    private static String brief(Throwable e) {
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        message = message.lines().findFirst().orElse(message);
        return message.length() > 200 ? message.substring(0, 200) + "..." : message;
    }
}
