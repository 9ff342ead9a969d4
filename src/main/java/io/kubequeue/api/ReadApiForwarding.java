package io.kubequeue.api;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;

import org.jboss.logging.Logger;

import io.kubequeue.config.ReadApiForwardingConfig;
import io.kubequeue.config.SettingRanges;
import io.kubequeue.leader.Leadership;
import io.kubequeue.leader.ReadApiLeaderAddress;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.vertx.http.runtime.filters.Filters;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

/**
 * One answer per cluster: the read API ({@code /api/v1/…}, the dry run included) answers as the leader does,
 * whichever replica is asked (issue 25). Only the leader runs scheduling cycles, so only it knows which jobs back
 * off, with how many tries, and which are held; a follower's own view would say "tried in the next cycle".
 * <ul>
 *   <li>The leader (or the only replica, with leader election off) answers itself, with header
 *       {@value #ANSWERED_BY}: its identity.</li>
 *   <li>A follower forwards the call to the leader's read API ({@link ReadApiLeaderAddress}): same method, path,
 *       query and body (streamed, never held whole), the caller's {@code Authorization},
 *       {@code X-Kube-Queue-Authorization}, {@code Content-Type}, {@code Content-Length} and {@code Accept}, and
 *       {@value #FORWARDED_BY} (its identity). The leader authenticates and authorises a forwarded call exactly as
 *       a direct one; its status, headers (less hop-by-hop ones) and body go back unchanged.</li>
 *   <li>A call that carries {@value #FORWARDED_BY} is never forwarded again: a replica that does not lead answers
 *       it 503, so no call goes round in circles.</li>
 *   <li>While no leader is known, or the leader does not take the connection, a follower looks again every
 *       {@value #RETRY_MILLIS} ms for up to {@code kube-queue.read-api.forward-wait} (default 5 s; a hand-over
 *       takes about one retry period), then answers 503 {@code {"error": "no replica leads now; try again …"}} with {@code Retry-After: 1}; never
 *       its own, divergent answer. A leader that took the call but sends nothing for {@value #IDLE_MILLIS} ms gets
 *       the call cut (503 as well).</li>
 * </ul>
 * Health and {@code /q/metrics} are on the management port and stay per replica. The forward is plain HTTP inside
 * the pod network, as the read API itself is (docs/security.md).
 */
@Singleton
public class ReadApiForwarding {

    /** Response header: the identity of the replica whose scheduler gave the answer. */
    public static final String ANSWERED_BY = "X-Kube-Queue-Answered-By";
    /** Request header of a forwarded call: the identity of the follower that forwarded it. */
    public static final String FORWARDED_BY = "X-Kube-Queue-Forwarded-By";
    static final long RETRY_MILLIS = 250;
    static final long CONNECT_MILLIS = 2_000;
    /** A leader that sends nothing for this long (reviews of the token included) has the call cut. */
    static final long IDLE_MILLIS = 10_000;
    /** The caller's headers a forwarded call carries; no others (no Host, Connection, cookies …). */
    private static final List<CharSequence> FORWARDED_HEADERS = List.of(HttpHeaders.AUTHORIZATION,
            ReadApiAccess.PROXIED_AUTHORIZATION, HttpHeaders.CONTENT_TYPE, HttpHeaders.CONTENT_LENGTH,
            HttpHeaders.ACCEPT);
    /** Hop-by-hop headers (RFC 9110, 7.6.1): about one connection, never passed on. */
    private static final Set<String> HOP_BY_HOP = Set.of("connection", "keep-alive", "transfer-encoding", "te",
            "trailer", "upgrade", "proxy-authenticate", "proxy-authorization", "proxy-connection");
    private static final Logger LOG = Logger.getLogger(ReadApiForwarding.class);

    private final Vertx vertx;
    private final Leadership leadership;
    private final ReadApiLeaderAddress address;
    private final MeterRegistry registry;
    private final HttpClient http;
    /** How long a follower waits for a leader to be known and to take the connection, in nanoseconds. */
    private final long waitNanos;
    /** The last failure logged, so that an unreachable leader logs once, not once per call. */
    private volatile String lastLogged;

    /**
     * @param settings {@code kube-queue.read-api.forward-wait}: how long a follower holds a call while no leader
     *                 is known or reachable, before it answers 503
     * @throws IllegalArgumentException if that is negative or above 30 s, naming the setting
     */
    public ReadApiForwarding(Vertx vertx, Leadership leadership, ReadApiLeaderAddress address, MeterRegistry registry,
                             ReadApiForwardingConfig settings) {
        this.waitNanos = SettingRanges.READ_API_FORWARD_WAIT.check(settings.forwardWait()).toNanos();
        this.vertx = vertx;
        this.leadership = leadership;
        this.address = address;
        this.registry = registry;
        for (String outcome : java.util.List.of("forwarded", "unavailable")) {
            counter(outcome); // at 0 from the start, as every kube-queue series
        }
        this.http = vertx.createHttpClient(new HttpClientOptions().setConnectTimeout((int) CONNECT_MILLIS)
                        .setKeepAlive(true).setIdleTimeout(60),
                // bounded: past 64 calls waiting for a connection to the leader, the next fails (503)
                new PoolOptions().setHttp1MaxSize(16).setMaxWaitQueueSize(64));
    }

    /** Runs before every route of the HTTP port (not the management port: health and metrics stay local). */
    void register(@Observes Filters filters) {
        filters.register(this::route, 10);
    }

    @PreDestroy
    void close() {
        http.close();
    }

    /** Whether a normalised path is the read API's. */
    static boolean readApi(String path) {
        return path != null && (path.equals("/api/v1") || path.startsWith("/api/v1/"));
    }

    private void route(RoutingContext rc) {
        if (!readApi(rc.normalizedPath())) {
            rc.next();
            return;
        }
        if (leadership.isLeader()) {
            answerHere(rc);
            return;
        }
        if (rc.request().getHeader(FORWARDED_BY) != null) {
            unavailable(rc, "replica " + leadership.identity() + " was forwarded this call but does not lead (any"
                    + " more); try again");
            return;
        }
        // no pause() here: Quarkus holds every request paused until a handler reads its body (ResumingRequestWrapper),
        // and a pause of ours would keep it so when this replica answers after all
        attempt(rc, System.nanoTime() + waitNanos);
    }

    private void answerHere(RoutingContext rc) {
        rc.response().putHeader(ANSWERED_BY, leadership.identity());
        rc.next();
    }

    /** One try at finding the leader and reaching it; looks again later, or answers 503 past the deadline. */
    private void attempt(RoutingContext rc, long deadline) {
        if (rc.response().closed() || rc.response().ended()) {
            return; // the caller went away
        }
        if (leadership.isLeader()) { // this replica started to lead while the call waited
            answerHere(rc);
            return;
        }
        vertx.<ReadApiLeaderAddress.Lookup>executeBlocking(address::leader, false).onComplete(found -> {
            if (leadership.isLeader()) {
                answerHere(rc);
                return;
            }
            ReadApiLeaderAddress.Lookup lookup = found.succeeded() ? found.result()
                    : new ReadApiLeaderAddress.Lookup(java.util.Optional.empty(), String.valueOf(found.cause()));
            if (lookup.leader().isEmpty()) {
                later(rc, deadline, lookup.why());
            } else if (lookup.leader().get().identity().equals(leadership.identity())) {
                // the Lease names this replica, which is not (yet, or any more) confirmed as leader
                later(rc, deadline, "this replica holds the Lease but is not confirmed as leader");
            } else {
                forward(rc, lookup.leader().get(), deadline);
            }
        });
    }

    private void later(RoutingContext rc, long deadline, String why) {
        if (System.nanoTime() + RETRY_MILLIS * 1_000_000 < deadline) {
            vertx.setTimer(RETRY_MILLIS, t -> attempt(rc, deadline));
        } else {
            count("unavailable");
            logOnce("read API: no leader to forward to (" + why + "): callers get 503");
            unavailable(rc, "no replica leads now; try again (" + why + ")");
        }
    }

    private void forward(RoutingContext rc, ReadApiLeaderAddress.Leader leader, long deadline) {
        HttpServerRequest in = rc.request();
        String query = in.query();
        RequestOptions options = new RequestOptions().setMethod(in.method())
                .setAbsoluteURI(leader.url() + in.path() + (query == null ? "" : "?" + query))
                .setConnectTimeout(CONNECT_MILLIS).setIdleTimeout(IDLE_MILLIS)
                .putHeader(FORWARDED_BY, leadership.identity());
        for (CharSequence name : FORWARDED_HEADERS) {
            List<String> values = in.headers().getAll(name);
            if (!values.isEmpty()) {
                options.putHeader(name, List.<CharSequence>copyOf(values));
            }
        }
        boolean hasBody = in.headers().contains(HttpHeaders.CONTENT_LENGTH)
                || in.headers().contains(HttpHeaders.TRANSFER_ENCODING);
        http.request(options).onComplete(connected -> {
            if (connected.failed()) { // nothing was sent: safe to look for the leader again
                later(rc, deadline, "the leader " + leader.identity() + " at " + leader.url() + " did not take the"
                        + " connection: " + connected.cause().getMessage());
                return;
            }
            (hasBody ? connected.result().send(in) : connected.result().send()).onComplete(answered -> {
                if (answered.failed()) {
                    count("unavailable");
                    logOnce("read API: the leader " + leader.identity() + " at " + leader.url()
                            + " did not answer a forwarded call: " + answered.cause().getMessage());
                    unavailable(rc, "the leader " + leader.identity() + " did not answer; try again");
                    return;
                }
                HttpClientResponse answer = answered.result();
                if (!hasBody && answer.statusCode() == 503 && answer.getHeader(ANSWERED_BY) == null
                        && System.nanoTime() + RETRY_MILLIS * 1_000_000 < deadline) {
                    // it stopped leading since the Lease was read: nothing of the call is lost, look again
                    answer.body();
                    later(rc, deadline, leader.identity() + " no longer leads");
                    return;
                }
                count("forwarded");
                lastLogged = null;
                pass(answer, rc.response());
            });
        });
    }

    /** The leader's status, headers (less hop-by-hop ones) and body, streamed to the caller. */
    private static void pass(HttpClientResponse answer, HttpServerResponse out) {
        out.setStatusCode(answer.statusCode());
        answer.headers().forEach(h -> {
            if (!HOP_BY_HOP.contains(h.getKey().toLowerCase(Locale.ROOT))) {
                out.headers().add(h.getKey(), h.getValue());
            }
        });
        if (!answer.headers().contains(HttpHeaders.CONTENT_LENGTH)) {
            out.setChunked(true);
        }
        answer.pipeTo(out);
    }

    private static void unavailable(RoutingContext rc, String message) {
        HttpServerResponse out = rc.response();
        if (out.closed() || out.ended()) {
            return; // the caller went away
        }
        if (out.headWritten()) {
            out.reset();
            return;
        }
        out.setStatusCode(503).putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                .putHeader(HttpHeaders.RETRY_AFTER, "1")
                .end(new JsonObject().put("error", message).encode());
    }

    private void count(String outcome) {
        counter(outcome).increment();
    }

    private Counter counter(String outcome) {
        return Counter.builder("kube_queue_read_api_forwards")
                .description("Read API calls this follower forwarded to the leader (forwarded: the leader's answer"
                        + " went back; unavailable: no leader known or reached, the caller got 503)")
                .tag("outcome", outcome).register(registry);
    }

    private void logOnce(String message) {
        if (!message.equals(lastLogged)) {
            lastLogged = message;
            LOG.warn(message);
        }
    }
}
