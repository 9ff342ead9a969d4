package io.kubequeue.testing;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;

/**
 * A stand-in API server's answers to SubjectAccessReviews, as an RBAC-only kube-apiserver gives them: a right is
 * granted to a user or a group, on a verb, an API group, a resource (with its subresource, {@code
 * quotagroups/pendingjobs}), in a namespace or cluster-wide ({@code ""}, which RBAC's ClusterRoleBinding also grants
 * in every namespace), for every name or one. A review matching no grant is {@code allowed: false}, with no
 * {@code denied} (RBAC only ever allows). Thread-safe: the server answers on its own threads.
 */
public final class AccessReviews {

    private record Grant(String subject, String verb, String group, String resource, String namespace, String name) {
    }

    private final ObjectMapper json;
    private final Set<Grant> grants = ConcurrentHashMap.newKeySet();
    private final AtomicInteger reviews = new AtomicInteger();
    private volatile java.time.Duration delay = java.time.Duration.ZERO;

    AccessReviews(ObjectMapper json) {
        this.json = json;
    }

    /**
     * Grants a user (or, as {@code group:NAME}, a group) a verb on a resource.
     *
     * @param resource  the resource, {@code resource/subresource} for a subresource
     * @param namespace the namespace, or {@code ""} for cluster-wide (every namespace too)
     */
    public AccessReviews grant(String subject, String verb, String group, String resource, String namespace) {
        return grant(subject, verb, group, resource, namespace, "");
    }

    /** As {@link #grant(String, String, String, String, String)}, for one object's name only ({@code ""}: any). */
    public AccessReviews grant(String subject, String verb, String group, String resource, String namespace,
                               String name) {
        grants.add(new Grant(subject, verb, group, resource, namespace, name));
        return this;
    }

    /** Takes back a right given by {@link #grant(String, String, String, String, String)} (the tests share a server). */
    public AccessReviews revoke(String subject, String verb, String group, String resource, String namespace) {
        grants.remove(new Grant(subject, verb, group, resource, namespace, ""));
        return this;
    }

    /** Answers each review only after this long (a busy API server); zero: at once. */
    public AccessReviews answerAfter(java.time.Duration delay) {
        this.delay = delay;
        return this;
    }

    /** How many reviews the server was asked. */
    public int reviews() {
        return reviews.get();
    }

    /**
     * The user a SelfSubjectAccessReview asks for: kube-queue's own service account, as the test client has no user
     * of its own. Grant it rights with {@link #grant} like any other subject.
     */
    public static final String SELF = "system:serviceaccount:kube-queue:kube-queue-controller";

    MockResponse answer(RecordedRequest request) {
        return answer(request, null);
    }

    /** A SelfSubjectAccessReview: as a SubjectAccessReview of {@link #SELF}, its spec has no user. */
    MockResponse answerSelf(RecordedRequest request) {
        return answer(request, SELF);
    }

    private MockResponse answer(RecordedRequest request, String self) {
        reviews.incrementAndGet();
        ObjectNode review;
        try {
            review = (ObjectNode) json.readTree(request.getBody().getBytes());
        } catch (Exception e) {
            return new MockResponse().setResponseCode(400).setBody("{\"kind\":\"Status\",\"apiVersion\":\"v1\","
                    + "\"status\":\"Failure\",\"reason\":\"BadRequest\",\"code\":400}");
        }
        JsonNode spec = review.path("spec");
        JsonNode asked = spec.path("resourceAttributes");
        String resource = asked.path("resource").asText("") + (asked.path("subresource").asText("").isEmpty() ? ""
                : "/" + asked.path("subresource").asText());
        List<String> subjects = new java.util.ArrayList<>();
        subjects.add(self != null ? self : spec.path("user").asText(""));
        spec.path("groups").forEach(g -> subjects.add("group:" + g.asText()));
        boolean allowed = asked.isObject() && grants.stream().anyMatch(g -> subjects.contains(g.subject())
                && g.verb().equals(asked.path("verb").asText()) && g.group().equals(asked.path("group").asText(""))
                && g.resource().equals(resource)
                && (g.namespace().isEmpty() || g.namespace().equals(asked.path("namespace").asText("")))
                && (g.name().isEmpty() || g.name().equals(asked.path("name").asText(""))));
        review.putObject("status").put("allowed", allowed);
        MockResponse response = new MockResponse().setResponseCode(201).setHeader("Content-Type", "application/json")
                .setBody(review.toString());
        return delay.isZero() ? response : response.setBodyDelay(delay);
    }
}
