package io.kubequeue.leader;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import jakarta.enterprise.event.ObservesAsync;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.kubequeue.config.ReadApiForwardingConfig;
import io.quarkus.runtime.Startup;

/**
 * Where the leader's read API is, so that a follower can forward to it (docs/architecture.md, "One answer per
 * cluster"). The leader writes two annotations on its Lease once per term, when its leadership is confirmed:
 * {@value #HOLDER} (its identity) and {@value #URL} (its read API's base URL, e.g. {@code http://10.1.2.3:8080}).
 * A follower reads them from the Lease (remembered for {@value #REMEMBER_MILLIS} ms) and trusts them only while
 * {@value #HOLDER} names the Lease's current holder, so an address left from an earlier term is never used.
 * <p>Renewals do not touch the annotations: fabric8's {@code LeaseLock} renews with a JSON merge patch that names
 * only {@code metadata.name}, {@code namespace}, {@code resourceVersion} and {@code spec}, and a merge patch leaves
 * every key it does not name as it was.
 * <p>Trust: only who may patch Leases in the Lease's namespace (kube-queue's ServiceAccount, the namespace's and
 * the cluster's admins) can write the address, and followers send callers' tokens there (docs/security.md).
 * <p>This replica's own address is {@code kube-queue.read-api.advertised-url} if set, else
 * {@code http://$POD_IP:<quarkus.http.port>} (the Deployment sets {@code POD_IP} from {@code status.podIP}); with
 * neither, the leader publishes nothing and followers answer 503.
 */
@Singleton
@Startup // built at start-up, so a bad kube-queue.read-api.advertised-url stops it with its message
public class ReadApiLeaderAddress {

    /** The Lease annotation naming the leader whose address {@link #URL} holds. */
    public static final String HOLDER = "kube-queue/read-api-holder";
    /** The Lease annotation holding the leader's read API base URL. */
    public static final String URL = "kube-queue/read-api-url";
    /**
     * The Lease annotation holding the leader's HTTPS port (the visibility API, {@code kube-queue.serving.port}), when
     * it serves one: a follower forwards visibility calls to the leader's host at this port.
     */
    public static final String SERVING_PORT = "kube-queue/serving-port";
    /** How long a follower reuses what it read from the Lease. */
    static final long REMEMBER_MILLIS = 500;
    /** Longest advertised URL accepted (an annotation anyone with Lease rights may write, so bounded). */
    static final int LONGEST_URL = 256;
    private static final int PUBLISH_ATTEMPTS = 5;
    private static final Logger LOG = Logger.getLogger(ReadApiLeaderAddress.class);

    private final KubernetesClient client;
    private final Leadership leadership;
    private final Optional<URI> advertised;
    /** This replica's HTTPS port, published beside its address; 0: none. */
    private final int servingPort;
    private final Clock clock;
    private final Object reading = new Object();
    private volatile Remembered remembered;
    private final java.util.concurrent.atomic.AtomicLong writes = new java.util.concurrent.atomic.AtomicLong();

    /**
     * @throws IllegalArgumentException if {@code kube-queue.read-api.advertised-url} is not an http(s) URL of a
     *                                  host and port only (see {@link #parse})
     */
    @Inject
    public ReadApiLeaderAddress(KubernetesClient client, Leadership leadership, ReadApiForwardingConfig settings,
                                @ConfigProperty(name = "quarkus.http.port", defaultValue = "8080") int httpPort,
                                @ConfigProperty(name = "kube-queue.serving.enabled", defaultValue = "false")
                                boolean serving,
                                @ConfigProperty(name = "kube-queue.serving.port", defaultValue = "8443") int servingPort) {
        this(client, leadership, ownAddress(settings.advertisedUrl(), Optional.ofNullable(System.getenv("POD_IP")),
                httpPort), serving && servingPort > 0 && servingPort <= 65_535 ? servingPort : 0, Clock.systemUTC());
    }

    ReadApiLeaderAddress(KubernetesClient client, Leadership leadership, Optional<URI> advertised, Clock clock) {
        this(client, leadership, advertised, 0, clock);
    }

    ReadApiLeaderAddress(KubernetesClient client, Leadership leadership, Optional<URI> advertised, int servingPort,
                         Clock clock) {
        this.client = client;
        this.leadership = leadership;
        this.advertised = advertised;
        this.servingPort = servingPort;
        this.clock = clock;
    }

    /**
     * This replica's read API address: the setting, else {@code http://<podIp>:<httpPort>}, else none.
     *
     * @throws IllegalArgumentException if the setting is not a valid address, naming it
     */
    static Optional<URI> ownAddress(Optional<String> setting, Optional<String> podIp, int httpPort) {
        Optional<String> set = setting.map(String::trim).filter(s -> !s.isEmpty());
        if (set.isPresent()) {
            return Optional.of(parse(set.get()).orElseThrow(() -> new IllegalArgumentException(
                    "kube-queue.read-api.advertised-url: must be http:// or https:// with a host and an optional"
                            + " port, nothing else (no path, query or user), at most " + LONGEST_URL
                            + " characters, e.g. http://10.1.2.3:8080; got '" + set.get() + "'")));
        }
        return podIp.map(String::trim).filter(ip -> !ip.isEmpty())
                .flatMap(ip -> parse("http://" + (ip.contains(":") ? "[" + ip + "]" : ip) + ":" + httpPort));
    }

    /**
     * A read API base URL, if it is one: {@code http} or {@code https}, a host, an optional port, at most
     * {@value #LONGEST_URL} characters, and nothing else (no user info, path other than {@code /}, query or
     * fragment), so that a forwarded call goes to that host's read API and nowhere else.
     *
     * @return the URL without a trailing slash, or empty if the text is not such a URL
     */
    public static Optional<URI> parse(String text) {
        if (text == null || text.length() > LONGEST_URL) {
            return Optional.empty();
        }
        try {
            URI uri = new URI(text);
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            boolean plain = (scheme.equals("http") || scheme.equals("https")) && uri.getHost() != null
                    && uri.getRawUserInfo() == null && uri.getRawQuery() == null && uri.getRawFragment() == null
                    && (uri.getRawPath() == null || uri.getRawPath().isEmpty() || uri.getRawPath().equals("/"));
            return plain ? Optional.of(new URI(scheme, null, uri.getHost(), uri.getPort(), null, null, null))
                    : Optional.empty();
        } catch (URISyntaxException e) {
            return Optional.empty();
        }
    }

    /** This replica's own read API address, if it has one. */
    public Optional<URI> advertised() {
        return advertised;
    }

    /**
     * The leader as the Lease names it now.
     *
     * @param leader the leader's read API, or empty when none is known
     * @param why    when none is known, why (for the 503 answer and the log)
     */
    public record Lookup(Optional<Leader> leader, String why) {
        static Lookup unknown(String why) {
            return new Lookup(Optional.empty(), why);
        }
    }

    /**
     * A leader's read API.
     *
     * @param identity    its name in the Lease
     * @param url         its read API base URL (scheme, host and port)
     * @param servingPort its HTTPS port (the visibility API), or 0 when it published none
     */
    public record Leader(String identity, URI url, int servingPort) {
        public Leader(String identity, URI url) {
            this(identity, url, 0);
        }
    }

    /**
     * The leader's read API as the Lease says now, read at most once every {@value #REMEMBER_MILLIS} ms (calls
     * in between get the remembered answer). Blocking: one GET of the Lease when not remembered.
     */
    public Lookup leader() {
        Instant now = clock.instant();
        Remembered r = remembered;
        if (r != null && now.isBefore(r.until())) {
            return r.lookup();
        }
        synchronized (reading) { // one read at a time: the callers waiting meanwhile take its answer
            r = remembered;
            if (r != null && now.isBefore(r.until())) {
                return r.lookup();
            }
            Lookup lookup = read();
            remembered = new Remembered(lookup, clock.instant().plusMillis(REMEMBER_MILLIS));
            return lookup;
        }
    }

    private Lookup read() {
        Lease lease;
        try {
            lease = client.leases().inNamespace(leadership.namespace()).withName(leadership.leaseName()).get();
        } catch (KubernetesClientException e) {
            return Lookup.unknown("cannot read Lease " + leaseName() + " (" + e.getCode() + ")");
        }
        return lookup(lease, leaseName());
    }

    /** What a Lease says of the leader's read API; see {@link #leader()}. */
    static Lookup lookup(Lease lease, String leaseName) {
        if (lease == null) {
            return Lookup.unknown("no Lease " + leaseName + " yet");
        }
        String holder = lease.getSpec() == null ? null : lease.getSpec().getHolderIdentity();
        if (holder == null || holder.isBlank()) {
            return Lookup.unknown("Lease " + leaseName + " names no holder");
        }
        Map<String, String> annotations = lease.getMetadata().getAnnotations() == null ? Map.of()
                : lease.getMetadata().getAnnotations();
        if (!holder.equals(annotations.get(HOLDER))) {
            return Lookup.unknown(holder + " holds Lease " + leaseName + " but has not published its read API"
                    + " address there yet");
        }
        int port = port(annotations.get(SERVING_PORT));
        return parse(annotations.get(URL)).map(url -> new Lookup(Optional.of(new Leader(holder, url, port)), null))
                .orElseGet(() -> Lookup.unknown("Lease " + leaseName + " holds no valid read API address for "
                        + holder + " (annotation " + URL + ")"));
    }

    /** A port annotation's value, 1 to 65535; 0 for anything else (absent, not a number, out of range, overlong). */
    static int port(String text) {
        if (text == null || text.isEmpty() || text.length() > 5 || !text.chars().allMatch(Character::isDigit)) {
            return 0;
        }
        int port = Integer.parseInt(text);
        return port <= 65_535 ? port : 0;
    }

    /**
     * Writes this replica's address on the Lease at the start of a term, just after its first renewal (see the class
     * comment and {@link Leadership.Term}): a GET, then one
     * merge patch guarded by the resourceVersion just read and only while the Lease names this replica, so an
     * address is never written into another replica's term. Nothing is written if the Lease already carries it
     * (a term regained by the same process). A conflict (a renewal between the GET and the patch) is retried.
     */
    void publish(@ObservesAsync Leadership.Term term) {
        if (advertised.isEmpty()) {
            // INFO, not WARN: alone (the demo, a replica run outside the cluster) nothing needs the address
            LOG.infof("read API: this replica leads with no address to publish (no POD_IP, no"
                    + " kube-queue.read-api.advertised-url): other replicas, if any run, answer the read API with 503"
                    + " while it leads; the shipped Deployment sets POD_IP");
            return;
        }
        String url = advertised.get().toString();
        for (int attempt = 1; attempt <= PUBLISH_ATTEMPTS; attempt++) {
            if (!leadership.isLeader() || leadership.termNumber() != term.number()) {
                return; // the term ended: the next leader publishes its own
            }
            try {
                Lease lease = client.leases().inNamespace(leadership.namespace()).withName(leadership.leaseName())
                        .get();
                if (lease == null || lease.getSpec() == null
                        || !leadership.identity().equals(lease.getSpec().getHolderIdentity())) {
                    return;
                }
                Map<String, String> annotations = lease.getMetadata().getAnnotations();
                String port = servingPort > 0 ? Integer.toString(servingPort) : null;
                if (annotations != null && leadership.identity().equals(annotations.get(HOLDER))
                        && url.equals(annotations.get(URL)) && java.util.Objects.equals(port, annotations.get(SERVING_PORT))) {
                    return;
                }
                Map<String, String> ours = new LinkedHashMap<>();
                ours.put(HOLDER, leadership.identity());
                ours.put(URL, url);
                if (port != null || annotations != null && annotations.containsKey(SERVING_PORT)) {
                    ours.put(SERVING_PORT, port); // null: the merge patch removes an earlier term's port
                }
                Map<String, Object> metadata = new LinkedHashMap<>();
                metadata.put("resourceVersion", lease.getMetadata().getResourceVersion());
                metadata.put("annotations", ours);
                client.leases().resource(lease).patch(PatchContext.of(PatchType.JSON_MERGE),
                        client.getKubernetesSerialization().asJson(Map.of("metadata", metadata)));
                writes.incrementAndGet();
                LOG.infof("read API: published this replica's address %s on Lease %s; the other replicas forward"
                        + " to it", url, leaseName());
                return;
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409) {
                    LOG.warnf("read API: could not publish this replica's address on Lease %s (%d %s); attempt %d"
                            + " of %d", leaseName(), e.getCode(), e.getMessage(), attempt, PUBLISH_ATTEMPTS);
                    pause();
                }
            }
        }
        LOG.warnf("read API: gave up publishing this replica's address on Lease %s after %d attempts: the other"
                + " replicas answer the read API with 503 until the next term", leaseName(), PUBLISH_ATTEMPTS);
    }

    /** The writes of this replica's address to the Lease that went through so far: one per term at most. */
    public long addressWrites() {
        return writes.get();
    }

    private void pause() {
        try {
            Thread.sleep(Duration.ofMillis(500).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private String leaseName() {
        return leadership.namespace() + "/" + leadership.leaseName();
    }

    private record Remembered(Lookup lookup, Instant until) {
    }
}
