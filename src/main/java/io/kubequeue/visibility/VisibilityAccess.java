package io.kubequeue.visibility;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubequeue.collections.BoundedMaps;

/**
 * What a caller of the visibility API may read, as the API server decides: one SubjectAccessReview per question, on
 * kube-queue's own resources ({@code visibility.kube-queue.io}: {@code pendingjobs} in a namespace,
 * {@code quotagroups} and their {@code pendingjobs} subresource), as any aggregated API server authorises (k8s.io/apiserver's
 * delegated authorisation). RBAC grants them as any resource: the shipped ClusterRoles aggregate
 * {@code get}/{@code list pendingjobs} into {@code view}. An answer is remembered for the read API's
 * {@code cache-for} (default 30 s), at most 16,384 of them; a question asked while it is being asked waits for that
 * review, so calls sent at once cost one review per question, not one per call.
 */
public final class VisibilityAccess implements Authorizer {

    private final KubernetesClient client;
    private final Duration cacheFor;
    private final Clock clock;
    private final Map<Question, Answer> answers = BoundedMaps.keepingRecentlyUsed(16_384);
    /** The questions being asked now, each with the answer its callers wait for. */
    private final Map<Question, java.util.concurrent.CompletableFuture<Boolean>> asking =
            new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * @param client   a client that does not retry (a failing API server is a quick 503)
     * @param cacheFor how long an answer is reused
     */
    public VisibilityAccess(KubernetesClient client, Duration cacheFor, Clock clock) {
        this.client = client;
        this.cacheFor = cacheFor;
        this.clock = clock;
    }

    /**
     * One question to the API server.
     *
     * @param verb        {@code get}, {@code list} or {@code create}
     * @param resource    {@code pendingjobs}, {@code quotagroups}, {@code dryruns} or {@code whatifs}
     * @param subresource {@code ""} or {@code pendingjobs}
     * @param namespace   {@code ""} for a cluster-scoped resource
     * @param name        {@code ""} for a list
     */
    public record Question(Caller caller, String verb, String resource, String subresource, String namespace,
                           String name) {
    }

    /** The API server could not answer (the caller gets 503). */
    public static final class Unanswered extends RuntimeException {
        Unanswered(String message) {
            super(message);
        }
    }

    /**
     * Whether the API server allows it.
     *
     * @throws Unanswered when the review failed or an authorizer could not evaluate it (not remembered)
     */
    @Override
    public boolean allows(Question q) {
        Instant now = clock.instant();
        synchronized (answers) {
            Answer hit = answers.get(q);
            if (hit != null && now.isBefore(hit.until())) {
                return hit.allowed();
            }
        }
        java.util.concurrent.CompletableFuture<Boolean> mine = new java.util.concurrent.CompletableFuture<>();
        java.util.concurrent.CompletableFuture<Boolean> theirs = asking.putIfAbsent(q, mine);
        if (theirs != null) { // being asked by another call: its answer, or its failure, is this one's
            try {
                return theirs.join();
            } catch (java.util.concurrent.CompletionException e) {
                throw e.getCause() instanceof RuntimeException r ? r : e;
            }
        }
        try {
            boolean allowed = review(q); // outside the lock: a slow API server must not hold other callers
            synchronized (answers) {
                answers.put(q, new Answer(allowed, now.plus(cacheFor)));
            }
            mine.complete(allowed);
            return allowed;
        } catch (RuntimeException e) {
            mine.completeExceptionally(e); // not remembered: the next call asks again
            throw e;
        } finally {
            asking.remove(q, mine);
        }
    }

    private boolean review(Question q) {
        SubjectAccessReview answer;
        try {
            answer = client.authorization().v1().subjectAccessReview().create(new SubjectAccessReviewBuilder()
                    .withNewSpec().withUser(q.caller().user()).withGroups(q.caller().groups())
                    .withExtra(q.caller().extra())
                    .withNewResourceAttributes().withVerb(q.verb()).withGroup(VisibilityApi.GROUP).withVersion(VisibilityApi.VERSION)
                    .withResource(q.resource()).withSubresource(q.subresource()).withNamespace(q.namespace())
                    .withName(q.name()).endResourceAttributes().endSpec().build());
        } catch (RuntimeException e) {
            throw new Unanswered("the API server did not answer a SubjectAccessReview (" + e.getClass().getSimpleName()
                    + "); try again");
        }
        SubjectAccessReviewStatus status = answer == null ? null : answer.getStatus();
        boolean allowed = status != null && Boolean.TRUE.equals(status.getAllowed());
        if (!allowed && status != null && status.getEvaluationError() != null && !status.getEvaluationError().isBlank()
                && !Boolean.TRUE.equals(status.getDenied())) {
            throw new Unanswered("the API server could not evaluate a SubjectAccessReview; try again");
        }
        return allowed;
    }

    private record Answer(boolean allowed, Instant until) {
    }
}
