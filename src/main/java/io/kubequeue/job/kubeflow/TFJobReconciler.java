package io.kubequeue.job.kubeflow;

import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.kubequeue.job.JobFeed;

/** Feeds every TFJob event, deletes included, to the scheduler. */
@ControllerConfiguration(name = "tfjob", generationAwareEventProcessing = false, triggerReconcilerOnAllEvents = true)
public class TFJobReconciler implements Reconciler<TFJob> {

    private final JobFeed feed;
    private final TFJobKind kind;

    public TFJobReconciler(JobFeed feed, TFJobKind kind) {
        this.feed = feed;
        this.kind = kind;
    }

    @Override
    public UpdateControl<TFJob> reconcile(TFJob job, Context<TFJob> context) {
        feed.observe(kind, job, context.isPrimaryResourceDeleted());
        return UpdateControl.noUpdate();
    }
}
