package io.kubequeue.job.argo;

import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.kubequeue.job.JobFeed;
import io.kubequeue.job.JobReconciler;

/** Feeds every Argo Workflow to the scheduler (annotation and status changes included). */
@ControllerConfiguration(name = "workflow", generationAwareEventProcessing = false)
public class WorkflowReconciler extends JobReconciler<Workflow> {

    public WorkflowReconciler(JobFeed feed, WorkflowKind kind) {
        super(feed, kind);
    }
}
