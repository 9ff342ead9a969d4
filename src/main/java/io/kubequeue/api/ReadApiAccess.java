package io.kubequeue.api;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import jakarta.ws.rs.ForbiddenException;
import jakarta.ws.rs.NotAuthorizedException;
import jakarta.ws.rs.ServiceUnavailableException;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.jboss.logging.Logger;

import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewBuilder;
import io.fabric8.kubernetes.api.model.authentication.UserInfo;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.RequestConfigBuilder;
import io.kubequeue.collections.BoundedMaps;
import io.kubequeue.config.KubeQueueConfig;
import io.kubequeue.config.SettingRanges;
import io.kubequeue.job.JobKindRegistry;
import io.kubequeue.scheduler.model.JobKey;
import io.quarkus.runtime.Startup;

/**
 * Who may read what through the read API ({@code /api/v1}), decided by the API server (docs/security.md).
 * <p>With {@code kube-queue.read-api.authentication=kubernetes} (the default) a caller presents a Kubernetes bearer
 * token in {@code Authorization: Bearer …}, or in {@code X-Kube-Queue-Authorization: Bearer …} when it comes through
 * the API server's service proxy (which drops {@code Authorization}). kube-queue asks the API server who that is
 * (a TokenReview) and then, per namespace and job kind, whether that user may {@code list} that kind there (a
 * SubjectAccessReview for, e.g., {@code list tfjobs.kubeflow.org} in {@code team-a}): the same right
 * {@code kubectl get tfjobs -n team-a} needs. A user allowed cluster-wide sees everything after one review.
 * Both answers are remembered for {@code kube-queue.read-api.cache-for} (default 30 s) so that a page of jobs costs
 * one review per namespace and kind, not one per job; at most 4,096 tokens and 16,384 review answers are kept.
 * <p>A TokenReview's answer is read as a real API server gives it (docs/security.md, "Who sees what"): not
 * authenticated, with or without {@code status.error} (kube-apiserver sets it to {@code "invalid bearer token"} for
 * an unknown, malformed or expired token), is a "no": 401, remembered for {@link #REJECTED_FOR} in a cache of its
 * own (1,024 tokens), so rejected tokens never crowd out accepted ones. Only a review that could not be had (an
 * exception, a 5xx or 429, a timeout; not retried, so the caller hears at once) or an answer with no verdict (no
 * status at all, or authenticated without a user) is 503 "try again", never remembered. A run of identical
 * failures is logged once per {@link #FAILURE_LOG_INTERVAL}.
 * <p>With {@code none}, every caller sees everything.
 */
@Singleton
@Startup // built at start-up, so a bad kube-queue.read-api.cache-for stops it with its message
public class ReadApiAccess {

    /** The header a caller uses when the API server's service proxy drops {@code Authorization}. */
    public static final String PROXIED_AUTHORIZATION = "X-Kube-Queue-Authorization";

    private static final Logger LOG = Logger.getLogger(ReadApiAccess.class);
    /**
     * How long a token the API server rejected is remembered as a "no" (at most {@code cache-for}): long enough
     * that a client retrying with a bad token in a loop costs one TokenReview per 5 s, short enough that a token
     * that just became valid (a new ServiceAccount token, an authenticator webhook back from a failure it answered
     * as a "no") works again within seconds, not after a "yes"'s 30 s.
     */
    static final Duration REJECTED_FOR = Duration.ofSeconds(5);
    /** The least time between two log lines about the same kind of failed review. */
    static final Duration FAILURE_LOG_INTERVAL = Duration.ofMinutes(1);

    private final JobKindRegistry kinds;
    private final boolean open;
    private final Duration cacheFor;
    private final Clock clock;
    private final Map<String, Expiring<UserInfo>> users = BoundedMaps.keepingRecentlyUsed(4096);
    private final Map<String, Expiring<UserInfo>> rejected = BoundedMaps.keepingRecentlyUsed(1024);
    /** The client for reviews: not retried, so that a failing API server is a quick 503, not a 20 s wait. */
    private final KubernetesClient reviewClient;
    private final FailureLog failures;
    private final Map<Review, Expiring<Boolean>> reviews = BoundedMaps.keepingRecentlyUsed(16_384);

    /** @throws IllegalArgumentException if {@code kube-queue.read-api.cache-for} is outside 1s to 10m */
    @Inject
    public ReadApiAccess(KubernetesClient client, JobKindRegistry kinds, KubeQueueConfig config) {
        this(client, kinds, config.readApi().authentication(), config.readApi().cacheFor(), Clock.systemUTC());
    }

    ReadApiAccess(KubernetesClient client, JobKindRegistry kinds, KubeQueueConfig.ReadApi.Authentication mode,
                  Duration cacheFor, Clock clock) {
        SettingRanges.READ_API_CACHE_FOR.check(cacheFor);
        this.reviewClient = client == null ? null : withoutRetries(client);
        this.failures = new FailureLog(FAILURE_LOG_INTERVAL, clock, LOG::warn);
        this.kinds = kinds;
        this.open = mode == KubeQueueConfig.ReadApi.Authentication.NONE;
        this.cacheFor = cacheFor;
        this.clock = clock;
    }

    /**
     * A client for the questions a caller waits on (TokenReviews, SubjectAccessReviews, reads of a caller's
     * settings): the client's own request settings (timeouts), without its retries, so that a failing API server is
     * a quick 503, not a 20 s wait. Shared by the read API and the visibility API.
     */
    public static KubernetesClient withoutRetries(KubernetesClient client) {
        return client.newClient(new RequestConfigBuilder(client.getConfiguration().getRequestConfig())
                .withRequestRetryBackoffLimit(0).build()).adapt(KubernetesClient.class);
    }

    /**
     * The caller of one request.
     *
     * @param headers the request's headers
     * @return who calls; with authentication off, a viewer who sees everything
     * @throws NotAuthorizedException (401) without a bearer token, or with one the API server does not accept
     * @throws ServiceUnavailableException (503) when the API server cannot be asked
     */
    public Viewer viewer(HttpHeaders headers) {
        if (open) {
            return new Viewer(null);
        }
        String token = bearer(headers.getHeaderString(HttpHeaders.AUTHORIZATION))
                .or(() -> bearer(headers.getHeaderString(PROXIED_AUTHORIZATION)))
                .orElseThrow(() -> unauthorized("a Kubernetes bearer token is needed: send it in 'Authorization: Bearer"
                        + " …', or in '" + PROXIED_AUTHORIZATION + ": Bearer …' through the API server's service proxy"));
        String key = sha256(token);
        Instant now = clock.instant();
        if (remembered(rejected, key, now) != null) {
            throw notAccepted();
        }
        Expiring<UserInfo> known = remembered(users, key, now);
        if (known != null) {
            return new Viewer(known.value());
        }
        UserInfo user = review(token); // outside any lock: a slow API server must not hold other callers
        if (user == null) {
            // a "no" lives in a cache of its own, for less time than a "yes"
            remember(rejected, key, null, now.plus(REJECTED_FOR.compareTo(cacheFor) < 0 ? REJECTED_FOR : cacheFor));
            throw notAccepted();
        }
        remember(users, key, user, now.plus(cacheFor));
        return new Viewer(user);
    }

    /**
     * One caller, as the API server knows them.
     */
    public final class Viewer {
        private final UserInfo user; // null: authentication is off
        private final Subject subject; // who asks, as every access review of this caller names them

        private Viewer(UserInfo user) {
            this.user = user;
            this.subject = user == null ? null : Subject.of(user);
        }

        /** The caller's user name, or {@code null} with authentication off. */
        public String name() {
            return user == null ? null : user.getUsername();
        }

        /**
         * Whether this caller may {@code list} jobs of this kind in this namespace (or in every namespace).
         *
         * @param kind      a managed job kind's {@link JobKind#kind()}, e.g. {@code TFJob}; an unknown kind is
         *                  checked as batch Jobs
         * @param namespace a namespace
         * @throws ServiceUnavailableException (503) when the API server cannot be asked
         */
        public boolean mayList(String kind, String namespace) {
            if (user == null) {
                return true;
            }
            String[] resource = resourceOf(kind);
            return allowed(resource, "") || allowed(resource, namespace);
        }

        /**
         * Whether this caller may see this job: may list its kind in its namespace (what names another tenant's job in
         * a reason, see {@link io.kubequeue.scheduler.model.Explanation}).
         *
         * @throws ServiceUnavailableException (503) when the API server cannot be asked
         */
        public boolean mayName(JobKey job) {
            return mayList(job.kind(), job.namespace());
        }

        /** Whether this caller may list some managed job kind in this namespace. */
        public boolean mayListAnyKind(String namespace) {
            return user == null || kinds.stream().anyMatch(k -> mayList(k.kind(), namespace));
        }

        /**
         * Like {@link #mayList}, for a request about one job kind in one namespace.
         *
         * @throws ForbiddenException (403) naming the right that is missing
         */
        public void requireList(String kind, String namespace) {
            if (!mayList(kind, namespace)) {
                throw forbidden(resource(resourceOf(kind)), namespace);
            }
        }

        /**
         * Like {@link #mayListAnyKind}, for a request about one namespace's jobs of any kind.
         *
         * @throws ForbiddenException (403) naming the namespace
         */
        public void requireListAnyKind(String namespace) {
            if (!mayListAnyKind(namespace)) {
                throw forbidden("any kind of job kube-queue manages", namespace);
            }
        }

        private ForbiddenException forbidden(String what, String namespace) {
            String message = "user " + name() + " may not list " + what + " in namespace " + namespace;
            return new ForbiddenException(message, Response.status(Response.Status.FORBIDDEN)
                    .entity(Map.of("error", message)).type(MediaType.APPLICATION_JSON).build());
        }

        private boolean allowed(String[] groupAndPlural, String namespace) {
            Review review = new Review(subject, groupAndPlural[0], groupAndPlural[1], namespace);
            return Boolean.TRUE.equals(cached(reviews, review, () -> access(review)));
        }
    }

    /** The API group and plural of a managed kind (a built-in or a declared one); a batch Job's if none matches. */
    private String[] resourceOf(String kind) {
        return kinds.stream().filter(k -> k.kind().equalsIgnoreCase(kind)).findFirst()
                .map(k -> new String[] {k.apiGroup(), k.plural()})
                .orElse(new String[] {"batch", "jobs"});
    }

    private static String resource(String[] groupAndPlural) {
        String group = groupAndPlural[0];
        return groupAndPlural[1] + (group == null || group.isEmpty() ? "" : "." + group);
    }

    private static <V> Expiring<V> remembered(Map<String, Expiring<V>> cache, String key, Instant now) {
        synchronized (cache) {
            Expiring<V> hit = cache.get(key);
            return hit != null && now.isBefore(hit.until()) ? hit : null;
        }
    }

    private static <V> void remember(Map<String, Expiring<V>> cache, String key, V value, Instant until) {
        synchronized (cache) {
            cache.put(key, new Expiring<>(value, until));
        }
    }

    private static NotAuthorizedException notAccepted() {
        return unauthorized("the API server does not accept this token (TokenReview: not authenticated)");
    }

    /**
     * The user behind a token, or null if the API server does not accept it. A real API server answers a token it
     * does not accept (unknown, malformed, expired, revoked) with {@code authenticated} false (or left out, its
     * zero value) and most often {@code status.error} set ({@code "invalid bearer token"}): that is a "no", as
     * kube-apiserver itself answers 401 to a request bearing such a token, whatever the error says. A TokenReview
     * has no way to say "could not decide"; an answer without a verdict (no status, or authenticated without a
     * user name) is treated as one.
     *
     * @throws ServiceUnavailableException (503) when the review failed or its answer has no verdict
     */
    private UserInfo review(String token) {
        TokenReview answer = ask("TokenReview", () -> reviewClient.authentication().v1().tokenReviews()
                .create(new TokenReviewBuilder().withNewSpec().withToken(token).endSpec().build()));
        if (answer == null || answer.getStatus() == null) {
            throw unanswered("TokenReview", "its answer has no status");
        }
        if (!Boolean.TRUE.equals(answer.getStatus().getAuthenticated())) {
            return null;
        }
        UserInfo user = answer.getStatus().getUser();
        if (user == null || user.getUsername() == null || user.getUsername().isBlank()) {
            throw unanswered("TokenReview", "authenticated, but no user named");
        }
        return user;
    }

    private boolean access(Review review) {
        Subject who = review.subject();
        SubjectAccessReview answer = ask("SubjectAccessReview", () -> reviewClient.authorization().v1().subjectAccessReview()
                .create(new SubjectAccessReviewBuilder().withNewSpec()
                        .withUser(who.user()).withUid(who.uid()).withGroups(who.groups()).withExtra(who.extra())
                        .withNewResourceAttributes().withVerb("list").withGroup(review.apiGroup())
                        .withResource(review.resource()).withNamespace(review.namespace()).endResourceAttributes()
                        .endSpec().build()));
        boolean allowed = answer.getStatus() != null && Boolean.TRUE.equals(answer.getStatus().getAllowed());
        String error = answer.getStatus() == null ? null : answer.getStatus().getEvaluationError();
        if (!allowed && error != null && !error.isBlank()
                && !Boolean.TRUE.equals(answer.getStatus().getDenied())) {
            // an authorizer failed to evaluate: not a "no", and not kept
            throw unanswered("SubjectAccessReview", error);
        }
        return allowed;
    }

    private ServiceUnavailableException unanswered(String what, String error) {
        failures.failed(what + " unanswered: " + error, "read API: the API server could not evaluate a " + what
                + " (" + error + "); the caller gets 503");
        return new ServiceUnavailableException("the API server could not evaluate a " + what + "; try again");
    }

    /** Makes one review call; a failed call (any exception: 5xx, 429, a timeout, no connection) is a 503. */
    private <T> T ask(String what, Supplier<T> call) {
        try {
            return call.get();
        } catch (RuntimeException e) {
            int code = e instanceof KubernetesClientException k ? k.getCode() : 0;
            failures.failed(what + " failed: " + code + " " + e.getClass().getName(), String.format(
                    "read API: the API server did not answer a %s (%d %s); the caller gets 503", what, code,
                    e.getMessage()));
            throw new ServiceUnavailableException("the API server did not answer a " + what + "; try again");
        }
    }

    /** The log of failed reviews (for tests). */
    FailureLog failureLog() {
        return failures;
    }

    /** A remembered access review's answer. */
    private <K, V> V cached(Map<K, Expiring<V>> cache, K key, Supplier<V> compute) {
        Instant now = clock.instant();
        synchronized (cache) {
            Expiring<V> hit = cache.get(key);
            if (hit != null && now.isBefore(hit.until())) {
                return hit.value();
            }
        }
        V value = compute.get(); // outside the lock: a slow API server must not hold other callers; throws (503) uncached
        synchronized (cache) {
            cache.put(key, new Expiring<>(value, now.plus(cacheFor)));
        }
        return value;
    }

    private static Optional<String> bearer(String header) {
        if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return Optional.empty();
        }
        String token = header.substring(7).trim();
        return token.isEmpty() ? Optional.empty() : Optional.of(token);
    }

    private static NotAuthorizedException unauthorized(String message) {
        return new NotAuthorizedException(message, Response.status(Response.Status.UNAUTHORIZED)
                .header(HttpHeaders.WWW_AUTHENTICATE, "Bearer").entity(Map.of("error", message))
                .type(MediaType.APPLICATION_JSON).build());
    }

    /** Tokens are kept only as their hash, so a heap dump does not hand them out. */
    private static String sha256(String token) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(token.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }

    private record Expiring<V>(V value, Instant until) {
    }

    /**
     * A caller as the API server named them. Extra is part of it (e.g. a token's scopes): two tokens of one user
     * must not share an answer.
     */
    private record Subject(String user, String uid, List<String> groups, Map<String, List<String>> extra) {
        static Subject of(UserInfo user) {
            return new Subject(user.getUsername(), user.getUid(),
                    user.getGroups() == null ? List.of() : List.copyOf(user.getGroups()),
                    user.getExtra() == null ? Map.of() : Map.copyOf(user.getExtra()));
        }
    }

    /** One access review: may the subject list this resource in this namespace ("" for every namespace). */
    private record Review(Subject subject, String apiGroup, String resource, String namespace) {
        Review {
            Objects.requireNonNull(namespace);
        }
    }
}
