package io.kubequeue.job.batch;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import java.util.List;

import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.kubequeue.job.JobDeletions;
import io.kubequeue.job.JobFeed;

/**
 * Feeds every batch/v1 Job to the scheduler. Reacts to annotation and status changes, not only spec changes,
 * hence no generation-aware filtering; deletes arrive through {@link JobDeletions}.
 */
@ControllerConfiguration(name = "job", generationAwareEventProcessing = false)
public class BatchJobReconciler implements Reconciler<Job> {

    private final JobFeed feed;
    private final BatchJobKind kind;

    public BatchJobReconciler(JobFeed feed, BatchJobKind kind) {
        this.feed = feed;
        this.kind = kind;
    }

    @Override
    public UpdateControl<Job> reconcile(Job job, Context<Job> context) {
        feed.observe(kind, job);
        return UpdateControl.noUpdate();
    }

    @Override
    public List<EventSource<?, Job>> prepareEventSources(EventSourceContext<Job> context) {
        return List.of(new JobDeletions<>(feed, kind.kind()));
    }
}
