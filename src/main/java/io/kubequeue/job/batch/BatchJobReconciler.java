package io.kubequeue.job.batch;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.kubequeue.job.JobFeed;

/**
 * Feeds every batch/v1 Job event, deletes included, to the scheduler. Reacts to annotation and status
 * changes, not only spec changes, hence no generation-aware filtering.
 */
@ControllerConfiguration(name = "job", generationAwareEventProcessing = false, triggerReconcilerOnAllEvents = true)
public class BatchJobReconciler implements Reconciler<Job> {

    private final JobFeed feed;
    private final BatchJobKind kind;

    public BatchJobReconciler(JobFeed feed, BatchJobKind kind) {
        this.feed = feed;
        this.kind = kind;
    }

    @Override
    public UpdateControl<Job> reconcile(Job job, Context<Job> context) {
        feed.observe(kind, job, context.isPrimaryResourceDeleted());
        return UpdateControl.noUpdate();
    }
}
