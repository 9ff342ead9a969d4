package io.kubequeue.scheduler.model;

import java.time.Duration;

/**
 * What a job says of how long it runs, for the start-time estimates (issue 30; docs/observability.md, "Start-time
 * estimates"). Never read by a decision.
 *
 * @param expected its {@code kube-queue/expected-duration} annotation, which overrides the cluster's history of alike
 *                 jobs; null if it has none (or it could not be read: an Event says so)
 * @param deadline its {@code activeDeadlineSeconds} (a batch Job's {@code spec}, a Kubeflow job's
 *                 {@code runPolicy}, an Argo Workflow's {@code spec}): the job is stopped by then, so no estimate of it
 *                 runs longer; null if it has none
 */
public record RunTimeHints(Duration expected, Duration deadline) {

    /** Nothing said. */
    public static final RunTimeHints NONE = new RunTimeHints(null, null);

    public RunTimeHints {
        if (expected != null && expected.isNegative()) {
            throw new IllegalArgumentException("expected duration below zero: " + expected);
        }
        if (deadline != null && deadline.isNegative()) {
            throw new IllegalArgumentException("deadline below zero: " + deadline);
        }
    }
}
