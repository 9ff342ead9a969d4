package io.kubequeue.scheduler;

import java.util.List;
import java.util.Optional;

import io.kubequeue.scheduler.model.Estimate;
import io.kubequeue.scheduler.model.EstimateAccuracy;
import io.kubequeue.scheduler.model.Explanation;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.SchedulerSettings;
import io.kubequeue.scheduler.model.WhatIf;

/**
 * The core's answers to "when will my job start" and "what would change it" (issue 30; docs/observability.md,
 * "Start-time estimates"), computed by replaying copies of the core: nothing here changes a decision. One of the
 * core's roles ({@link Scheduler} implements it).
 */
public interface Forecasting {

    /** See {@link Scheduler#estimate}. */
    Optional<Estimate> estimate(JobKey key);

    /** See {@link Scheduler#estimateIfSubmitted}. */
    Estimate estimateIfSubmitted(JobObservation job);

    /** See {@link Scheduler#whatIf}. */
    WhatIf whatIf(QuotaTree tree, SchedulerSettings settings);

    /** See {@link Scheduler#unblock}. */
    List<Explanation> unblock(JobKey key);

    /** See {@link Scheduler#estimateAccuracy}. */
    EstimateAccuracy estimateAccuracy();

    /** See {@link Scheduler#refreshEstimatesIfDue}. */
    boolean refreshEstimatesIfDue();
}
