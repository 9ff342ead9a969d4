package io.kubequeue.testing;

import java.net.InetAddress;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.kubequeue.input.JsonBounds;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.fabric8.mockwebserver.crud.AttributeSet;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.internal.MockDispatcher;
import io.fabric8.mockwebserver.internal.SimpleRequest;
import io.fabric8.zjsonpatch.CompatibilityFlags;
import io.fabric8.zjsonpatch.JsonPatch;
import io.fabric8.zjsonpatch.JsonPatchException;

/**
 * The fabric8 mock API server in CRUD mode, made as strict as a real kube-apiserver where kube-queue's writes
 * depend on it (../shared/reference/real-apiserver.md). Every test against a mock API server uses this one, so a
 * write the real server would refuse fails here too:
 * <ul>
 *   <li><b>JSON Patch</b> ({@code application/json-patch+json}) is applied to the object as stored, strictly by
 *       RFC 6902 (fabric8's zjsonpatch): an {@code add} whose parent is missing, a {@code remove} or
 *       {@code replace} of a missing member, and a {@code test} whose value differs ({@code "true"} is not
 *       {@code true}) answer 422 and change nothing. The plain mock creates missing parents first, so a patch
 *       that every real API server refuses (an annotation added to a job without annotations) passed there.</li>
 *   <li><b>Status subresource</b>: for the kinds that have one (batch Jobs, pods, ResourceQuotas, TFJob,
 *       PyTorchJob, MPIJob v1 and v2beta1), {@code status} is written only through {@code /status}; a write to the
 *       main resource keeps the stored status, a write to {@code /status} changes nothing else, and a create drops
 *       the status it is given. (Argo's Workflow CRD has no status subresource: its status is written with the
 *       object.)</li>
 *   <li><b>TokenReview</b> ({@code POST /apis/authentication.k8s.io/v1/tokenreviews}) is answered as kube-apiserver
 *       answers it (its tokenreview REST storage sets {@code status.authenticated} from the authenticators' verdict
 *       and {@code status.error} from their error, if any): a token registered with {@link #tokens} is
 *       authenticated as its user; any other token (unknown, malformed) is answered not authenticated
 *       ({@code authenticated} left out, as Go's omitempty leaves out false) <em>with</em>
 *       {@code error: "invalid bearer token"}, an expired one with the service account authenticator's error too,
 *       and one registered as {@link Tokens#rejectWithoutError} with an empty status, the other form a real server
 *       sends. The plain mock stored the review and sent it back without a status.</li>
 *   <li><b>SubjectAccessReview</b> ({@code POST /apis/authorization.k8s.io/v1/subjectaccessreviews}) is answered
 *       as an RBAC-only kube-apiserver answers it ({@link AccessReviews}): {@code status.allowed} true for a right
 *       granted with {@link #access}, else {@code allowed: false} (RBAC never denies outright, so no
 *       {@code denied}); the plain mock stored the review and sent it back without a status. A
 *       <b>SelfSubjectAccessReview</b> is answered the same way for {@link AccessReviews#SELF}, kube-queue's own
 *       service account.</li>
 *   <li><b>Deep objects</b>: an object nested up to the API server's 10,000 levels is stored, listed, watched and
 *       patched ({@link JsonBounds}); the plain mock parses with Jackson's default of 1,000 levels and never answers
 *       a deeper create, where a real API server stores it (and Argo's Workflow CRD keeps unknown fields).</li>
 *   <li><b>Pod admission</b>: a pod created gets its LimitRange defaults and its RuntimeClass's overhead, and one
 *       naming an unknown RuntimeClass is refused, as the LimitRanger and RuntimeClass admission plugins do
 *       ({@link PodAdmissionPlugins}); the plain mock stored the pod as sent.</li>
 * </ul>
 * <ul>
 *   <li><b>Unserved kinds</b> ({@link #unserved}): every request for a group/version/plural the cluster does not
 *       serve answers 404, whatever its query, as a real server without that CRD version does.</li>
 *   <li><b>Label selectors</b>: a list or watch whose {@code labelSelector} names a key Kubernetes refuses (a name
 *       part over 63 characters, a prefix over 253, other characters) answers 400, as kube-apiserver does ("unable
 *       to parse requirement"); the plain mock matched it as any other string.</li>
 * </ul>
 * and, for the races of issue 26, {@link InFlightPatches} ({@link #inFlight}): an edit landing just before a patch, and a
 * patch answered 504 and applied after the client gave up.
 * Expectations set with {@link KubernetesMockServer#expect()} are answered first, as on the plain mock.
 */
public final class StrictApiServer {

    /** Kinds whose status is a subresource on a real API server, as the mock server names them. */
    private static final List<CustomResourceDefinitionContext> STATUS_SUBRESOURCES = List.of(
            kind("batch", "v1", "jobs", "Job"),
            kind("", "v1", "pods", "Pod"),
            kind("", "v1", "resourcequotas", "ResourceQuota"),
            kind("kubeflow.org", "v1", "tfjobs", "TFJob"),
            kind("kubeflow.org", "v1", "pytorchjobs", "PyTorchJob"),
            kind("kubeflow.org", "v1", "mpijobs", "MPIJob"),
            kind("kubeflow.org", "v2beta1", "mpijobs", "MPIJob"),
            kind("scheduling.sigs.k8s.io", "v1beta1", "elasticquotatrees", "ElasticQuotaTree"));

    private static final ObjectMapper JSON = JsonBounds.apply(new ObjectMapper());
    private static final String TOKEN_REVIEWS = "/apis/authentication.k8s.io/v1/tokenreviews";
    private static final String ACCESS_REVIEWS = "/apis/authorization.k8s.io/v1/subjectaccessreviews";
    private static final String SELF_ACCESS_REVIEWS = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";
    /** Each server's RBAC grants, for its SubjectAccessReviews; a server is dropped with the last reference to it. */
    private static final Map<KubernetesMockServer, AccessReviews> ACCESS =
            java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());
    /** Each server's tokens; a server is dropped with the last reference to it. */
    private static final Map<KubernetesMockServer, Tokens> TOKENS =
            java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());

    /** Each server's in-flight races (issue 26); a server is dropped with the last reference to it. */
    private static final Map<KubernetesMockServer, InFlightPatches> IN_FLIGHT =
            java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());

    /** Each server's resources it does not serve (issue 29); a server is dropped with the last reference to it. */
    private static final Map<KubernetesMockServer, java.util.Set<String>> UNSERVED =
            java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());

    private StrictApiServer() {
    }

    /**
     * From now on this server does not serve {@code group/version} {@code plural}, as a real API server without
     * that version of the CRD: every request for it (list, watch, get, in any namespace, whatever the query)
     * answers 404 NotFound with a Status. The plain mock's expectations match one exact path and query each, so a
     * list with {@code ?limit=500} or a watch slipped past them to the CRUD store and found the kind served.
     *
     * @param server a server made by {@link #create} or {@link #started}
     */
    public static void unserved(KubernetesMockServer server, String group, String version, String plural) {
        java.util.Set<String> unserved = UNSERVED.get(server);
        if (unserved == null) {
            throw new IllegalArgumentException("not a StrictApiServer: " + server);
        }
        unserved.add("/apis/" + group + "/" + version + " " + plural);
    }

    /** A label key as Kubernetes validates it: an optional DNS-subdomain prefix (≤ 253) and {@code /}, a name ≤ 63. */
    private static final java.util.regex.Pattern LABEL_KEY = java.util.regex.Pattern.compile(
            "(([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)/)?([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)");

    /**
     * Why kube-apiserver would refuse the request's {@code labelSelector} (a key it does not accept), or null. Only the
     * keys are checked: of each requirement, what comes before {@code =}, {@code !=}, {@code in}, {@code notin}, or a
     * {@code !} of absence.
     */
    static String refusedLabelSelector(String path) {
        int query = path.indexOf('?');
        if (query < 0) {
            return null;
        }
        for (String parameter : path.substring(query + 1).split("&")) {
            if (!parameter.startsWith("labelSelector=")) {
                continue;
            }
            String selector = java.net.URLDecoder.decode(parameter.substring("labelSelector=".length()),
                    java.nio.charset.StandardCharsets.UTF_8);
            for (String requirement : selector.split(",(?![^(]*\\))")) {
                String key = requirement.trim().replaceFirst("^!", "").split("\\s*(!=|==|=|\\s+in\\s|\\s+notin\\s)", 2)[0]
                        .trim();
                java.util.regex.Matcher m = LABEL_KEY.matcher(key);
                if (!m.matches() || (m.group(2) != null && m.group(2).length() > 253) || m.group(6).length() > 63) {
                    return "invalid label key \\\"" + key.substring(0, Math.min(key.length(), 80)) + "\\\"";
                }
            }
        }
        return null;
    }

    /** Whether a request path (query included) is for a resource the server does not serve. */
    static boolean isUnserved(java.util.Set<String> unserved, String path) {
        if (unserved.isEmpty() || !path.startsWith("/apis/")) {
            return false;
        }
        int query = path.indexOf('?');
        String[] parts = (query < 0 ? path : path.substring(0, query)).split("/");
        // "", "apis", group, version, [namespaces, ns,] plural[, name[, subresource]]
        if (parts.length < 5) {
            return false;
        }
        String groupVersion = "/apis/" + parts[2] + "/" + parts[3];
        String plural = parts[4].equals("namespaces") && parts.length >= 7 ? parts[6] : parts[4];
        return unserved.contains(groupVersion + " " + plural);
    }

    /**
     * What happens to this server's JSON Patches between sending and applying ({@link InFlightPatches}).
     *
     * @param server a server made by {@link #create} or {@link #started}
     */
    public static InFlightPatches inFlight(KubernetesMockServer server) {
        InFlightPatches inFlight = IN_FLIGHT.get(server);
        if (inFlight == null) {
            throw new IllegalArgumentException("not a StrictApiServer: " + server);
        }
        return inFlight;
    }

    /**
     * The tokens this server's TokenReview knows: register users (and faults) here, before or during a test.
     *
     * @param server a server made by {@link #create} or {@link #started}
     */
    public static Tokens tokens(KubernetesMockServer server) {
        Tokens tokens = TOKENS.get(server);
        if (tokens == null) {
            throw new IllegalArgumentException("not a StrictApiServer: " + server);
        }
        return tokens;
    }

    /**
     * What this server's SubjectAccessReviews allow: grant rights here, before or during a test.
     *
     * @param server a server made by {@link #create} or {@link #started}
     */
    public static AccessReviews access(KubernetesMockServer server) {
        AccessReviews access = ACCESS.get(server);
        if (access == null) {
            throw new IllegalArgumentException("not a StrictApiServer: " + server);
        }
        return access;
    }

    /**
     * What a server's TokenReview answers per token; every token not registered is unknown. Thread-safe: the server
     * answers on its own threads.
     */
    public static final class Tokens {
        /** What kube-apiserver sets {@code status.error} to for a token no authenticator accepts. */
        public static final String INVALID = "invalid bearer token";
        /** ... and for an expired service account token (the union authenticator joins the errors). */
        public static final String EXPIRED = "[invalid bearer token, service account token has expired]";

        private final Map<String, io.fabric8.kubernetes.api.model.authentication.UserInfo> users =
                new java.util.concurrent.ConcurrentHashMap<>();
        private final Map<String, String> rejected = new java.util.concurrent.ConcurrentHashMap<>();
        private final Map<String, Integer> failing = new java.util.concurrent.ConcurrentHashMap<>();
        private final Set<String> unanswered = java.util.concurrent.ConcurrentHashMap.newKeySet();
        private final java.util.concurrent.atomic.AtomicInteger reviews = new java.util.concurrent.atomic.AtomicInteger();

        /** A token authenticated as this user, in {@code system:authenticated} and the groups given. */
        public Tokens accept(String token, String user, String... groups) {
            List<String> all = new java.util.ArrayList<>(List.of(groups));
            all.add("system:authenticated");
            users.put(token, new io.fabric8.kubernetes.api.model.authentication.UserInfoBuilder().withUsername(user)
                    .withUid("uid-" + user).withGroups(all).build());
            return this;
        }

        /** A token that has expired: {@code authenticated: false}, {@code error} {@value #EXPIRED}. */
        public Tokens expired(String token) {
            users.remove(token);
            rejected.put(token, EXPIRED);
            return this;
        }

        /** A token refused with no {@code status.error} (an authenticator that says no without an error). */
        public Tokens rejectWithoutError(String token) {
            users.remove(token);
            rejected.put(token, "");
            return this;
        }

        /** The review of this token fails: answered with this HTTP status (500, 429, ...) and a Status body. */
        public Tokens fail(String token, int httpStatus) {
            failing.put(token, httpStatus);
            return this;
        }

        /** The review of this token is answered 201 with no status: no verdict at all. */
        public Tokens unanswered(String token) {
            unanswered.add(token);
            return this;
        }

        /** How many TokenReviews the server was asked, whatever the answer. */
        public int reviews() {
            return reviews.get();
        }

        MockResponse answer(RecordedRequest request) {
            reviews.incrementAndGet();
            ObjectNode review;
            try {
                review = (ObjectNode) JSON.readTree(request.getBody().getBytes());
            } catch (Exception e) {
                return new MockResponse().setResponseCode(400).setBody(status(400, "BadRequest", e.getMessage()));
            }
            String token = review.path("spec").path("token").asText("");
            Integer failure = failing.get(token);
            if (failure != null) {
                return new MockResponse().setResponseCode(failure).setBody(status(failure,
                        failure == 429 ? "TooManyRequests" : "InternalError", "the TokenReview failed (test fault)"));
            }
            ObjectNode status = review.putObject("status");
            if (unanswered.contains(token)) {
                review.remove("status");
            } else if (users.containsKey(token)) {
                status.put("authenticated", true);
                status.set("user", JSON.valueToTree(users.get(token)));
                status.putArray("audiences").add("https://kubernetes.default.svc");
            } else {
                // no "authenticated": false: kube-apiserver leaves it out (omitempty), a "no" is an empty status
                String error = rejected.getOrDefault(token, INVALID);
                if (!error.isEmpty()) {
                    status.put("error", error);
                }
            }
            return new MockResponse().setResponseCode(201).setHeader("Content-Type", "application/json")
                    .setBody(review.toString());
        }

        private static String status(int code, String reason, String message) {
            return JsonNodeFactory.instance.objectNode().put("apiVersion", "v1").put("kind", "Status")
                    .put("status", "Failure").put("reason", reason).put("code", code).put("message", message).toString();
        }
    }

    /**
     * A new, not yet started server: call {@link KubernetesMockServer#init()} (or {@code init(address, port)}),
     * and {@link KubernetesMockServer#destroy()} when done.
     */
    public static KubernetesMockServer create() {
        // the mock's CRUD dispatcher reads and writes with fabric8's static mapper: as deep as a real server goes
        JsonBounds.apply(Serialization.jsonMapper());
        Map<ServerRequest, Queue<ServerResponse>> expectations = new HashMap<>();
        Tokens tokens = new Tokens();
        InFlightPatches inFlight = new InFlightPatches();
        AccessReviews access = new AccessReviews(JSON);
        java.util.Set<String> unserved = java.util.concurrent.ConcurrentHashMap.newKeySet();
        KubernetesMockServer server = new KubernetesMockServer(new Context(), new MockWebServer(), expectations,
                new StrictDispatcher(expectations, tokens, inFlight, unserved, access), false);
        TOKENS.put(server, tokens);
        ACCESS.put(server, access);
        IN_FLIGHT.put(server, inFlight);
        UNSERVED.put(server, unserved);
        return server;
    }

    /** A started server on the loopback interface, plain HTTP, any free port; its request log quiet. */
    public static KubernetesMockServer started() {
        java.util.logging.Logger.getLogger("io.fabric8.mockwebserver").setLevel(java.util.logging.Level.WARNING);
        KubernetesMockServer server = create();
        server.init(InetAddress.getLoopbackAddress(), 0);
        return server;
    }

    private static CustomResourceDefinitionContext kind(String group, String version, String plural, String kind) {
        return new CustomResourceDefinitionContext.Builder().withGroup(group).withVersion(version)
                .withPlural(plural).withKind(kind).withScope("Namespaced").withStatusSubresource(true).build();
    }

    /** Expectations first (as the plain mock's mixed dispatcher does), then strict checks, then CRUD. */
    private static final class StrictDispatcher extends Dispatcher {

        private final Map<ServerRequest, Queue<ServerResponse>> expectations;
        private final MockDispatcher expected;
        private final KubernetesCrudDispatcher crud = new KubernetesCrudDispatcher(STATUS_SUBRESOURCES);
        private final Tokens tokens;
        private final InFlightPatches inFlight;
        private final PodAdmissionPlugins pods = new PodAdmissionPlugins(crud, JSON);

        private final java.util.Set<String> unserved;
        private final AccessReviews access;

        StrictDispatcher(Map<ServerRequest, Queue<ServerResponse>> expectations, Tokens tokens,
                         InFlightPatches inFlight, java.util.Set<String> unserved, AccessReviews access) {
            this.unserved = unserved;
            this.access = access;
            this.expectations = expectations;
            this.expected = new MockDispatcher(expectations);
            this.tokens = tokens;
            this.inFlight = inFlight;
            inFlight.serveWith(this::strictly);
        }

        @Override
        public MockResponse dispatch(RecordedRequest request) {
            Queue<ServerResponse> queued = expectations.get(
                    new SimpleRequest(HttpMethod.valueOf(request.getMethod()), request.getPath()));
            if (queued != null && !queued.isEmpty()) {
                return expected.dispatch(request);
            }
            if (isUnserved(unserved, request.getPath())) {
                return new MockResponse().setResponseCode(404).setBody("{\"kind\":\"Status\",\"apiVersion\":\"v1\","
                        + "\"status\":\"Failure\",\"reason\":\"NotFound\",\"code\":404,"
                        + "\"message\":\"the server could not find the requested resource\"}");
            }
            if ("GET".equals(request.getMethod())) {
                String refused = refusedLabelSelector(request.getPath());
                if (refused != null) {
                    return new MockResponse().setResponseCode(400).setBody("{\"kind\":\"Status\",\"apiVersion\":"
                            + "\"v1\",\"status\":\"Failure\",\"reason\":\"BadRequest\",\"code\":400,\"message\":"
                            + "\"unable to parse requirement: " + refused + "\"}");
                }
            }
            if ("POST".equals(request.getMethod()) && request.getPath().startsWith(TOKEN_REVIEWS)) {
                return tokens.answer(request);
            }
            if ("POST".equals(request.getMethod()) && request.getPath().startsWith(ACCESS_REVIEWS)) {
                return access.answer(request);
            }
            if ("POST".equals(request.getMethod()) && request.getPath().startsWith(SELF_ACCESS_REVIEWS)) {
                return access.answerSelf(request); // kube-queue's own rights, as RBAC grants them
            }
            String podNamespace = PodAdmissionPlugins.podCreateNamespace(request.getMethod(), request.getPath());
            if (podNamespace != null) { // LimitRanger and RuntimeClass, as kube-apiserver admits a pod
                PodAdmissionPlugins.Admitted admitted = pods.admit(podNamespace, request.getBody().getBytes());
                if (admitted.refusal() != null) {
                    return admitted.refusal();
                }
                request = new RecordedRequest(request.getHttpVersion(), request.method(), request.getPath(),
                        request.getHeaders(), new io.fabric8.mockwebserver.http.Buffer(admitted.body()));
            }
            if ("PATCH".equals(request.getMethod()) && isJsonPatch(request)) {
                MockResponse instead = inFlight.intercept(request);
                if (instead != null) {
                    return instead;
                }
            }
            return strictly(request);
        }

        /** The strict checks, then the CRUD store. */
        private MockResponse strictly(RecordedRequest request) {
            if ("PATCH".equals(request.getMethod()) && isJsonPatch(request)) {
                String refusal = jsonPatchRefusal(request);
                if (refusal != null) {
                    return invalid(refusal);
                }
            }
            return crud.dispatch(request);
        }

        private static boolean isJsonPatch(RecordedRequest request) {
            String type = request.getHeader("Content-Type");
            return type != null && type.startsWith("application/json-patch+json");
        }

        /** Why a real API server would refuse this JSON Patch on the stored object; null if it would apply it. */
        private String jsonPatchRefusal(RecordedRequest request) {
            String path = request.getPath();
            int query = path.indexOf('?');
            AttributeSet key = crud.getKey(query < 0 ? path : path.substring(0, query));
            Map.Entry<AttributeSet, String> stored = crud.findResource(key);
            if (stored == null) {
                return null; // not found: the CRUD dispatcher answers 404
            }
            try {
                // getBytes, not readUtf8: reading would consume the body the CRUD dispatcher applies next
                JsonNode patch = JSON.readTree(request.getBody().getBytes());
                JsonNode object = JSON.readTree(stored.getValue());
                // the real server patches the status subresource's view: the whole object, as stored
                JsonPatch.apply(patch, object, EnumSet.of(CompatibilityFlags.FORBID_REMOVE_MISSING_OBJECT));
                return null;
            } catch (JsonPatchException e) {
                return e.getMessage();
            } catch (Exception e) {
                return "the patch is not a JSON Patch document: " + e.getMessage();
            }
        }

        private static MockResponse invalid(String message) {
            ObjectNode status = JsonNodeFactory.instance.objectNode().put("apiVersion", "v1").put("kind", "Status")
                    .put("status", "Failure").put("reason", "Invalid").put("code", 422)
                    .put("message", "the JSON Patch does not apply (RFC 6902, as a real API server checks it): " + message);
            return new MockResponse().setResponseCode(422).setBody(status.toString());
        }
    }
}
