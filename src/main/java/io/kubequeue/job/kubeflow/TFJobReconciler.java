package io.kubequeue.job.kubeflow;

import java.util.List;

import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.kubequeue.job.JobDeletions;
import io.kubequeue.job.JobFeed;

/** Feeds every TFJob to the scheduler; deletes arrive through {@link JobDeletions}. */
@ControllerConfiguration(name = "tfjob", generationAwareEventProcessing = false)
public class TFJobReconciler implements Reconciler<TFJob> {

    private final JobFeed feed;
    private final TFJobKind kind;

    public TFJobReconciler(JobFeed feed, TFJobKind kind) {
        this.feed = feed;
        this.kind = kind;
    }

    @Override
    public UpdateControl<TFJob> reconcile(TFJob job, Context<TFJob> context) {
        feed.observe(kind, job);
        return UpdateControl.noUpdate();
    }

    @Override
    public List<EventSource<?, TFJob>> prepareEventSources(EventSourceContext<TFJob> context) {
        return List.of(new JobDeletions<>(feed, kind.kind()));
    }
}
