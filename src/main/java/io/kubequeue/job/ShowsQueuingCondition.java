package io.kubequeue.job;

import java.time.Instant;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;

import io.fabric8.kubernetes.client.CustomResource;

/**
 * Optional capability of a {@link JobKind}: a queued job of the kind shows condition {@code Queuing=True} ("Job
 * Enqueued") in its status, and {@code Queuing=False} once admitted, so that {@code kubectl get} prints
 * {@code Queuing} as in the seed (docs/behaviour.md §5). {@link JobFeed} asks for the condition on queued jobs and
 * the admission code writes it through the status subresource ({@code io.kubequeue.admission.QueuingConditions},
 * since admission is the only code that writes jobs); the kind says which jobs show it and how the condition reads
 * and is written in its status. TFJob and PyTorchJob implement it (their ack-arena operators expect it).
 *
 * <p>A kind that implements it needs RBAC {@code patch} on its {@code <plural>/status} ({@link #STATUS_VERBS}),
 * in both manifests; {@code RegisteredKindsTest} fails otherwise.
 *
 * @param <R> the kind's class; its status is read and written as JSON, as for every kind owned by another operator
 */
public interface ShowsQueuingCondition<R extends CustomResource<JsonNode, JsonNode>> extends JobKind<R> {

    /** The verbs kube-queue needs on the status subresource of such a kind: the condition is written by a patch. */
    List<String> STATUS_VERBS = List.of("patch");

    /**
     * Whether this job, while queued, should show the condition (e.g. only jobs queued by the annotation): read
     * when the job is seen queued, and again on the current copy right before {@code True} is written.
     */
    boolean showsQueuing(R job);

    /** The status of the job's {@code Queuing} condition ({@code True}, {@code False}); null without one. */
    String queuingStatus(R job);

    /**
     * Sets the job's {@code Queuing} condition in its status, in place of any earlier one; the job is the copy
     * about to be written to the status subresource.
     *
     * @param status  {@code True} or {@code False}
     * @param reason  the condition's reason, e.g. {@code JobEnqueued}
     * @param message the condition's message, for people
     * @param at      its update and transition time
     */
    void setQueuingCondition(R job, String status, String reason, String message, Instant at);
}
