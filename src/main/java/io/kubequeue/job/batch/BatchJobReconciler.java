package io.kubequeue.job.batch;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.kubequeue.job.JobFeed;
import io.kubequeue.job.JobReconciler;

/**
 * Feeds every batch/v1 Job to the scheduler. Reacts to annotation and status changes, not only spec changes,
 * hence no generation-aware filtering.
 */
@ControllerConfiguration(name = "job", generationAwareEventProcessing = false)
public class BatchJobReconciler extends JobReconciler<Job> {

    public BatchJobReconciler(JobFeed feed, BatchJobKind kind) {
        super(feed, kind);
    }
}
