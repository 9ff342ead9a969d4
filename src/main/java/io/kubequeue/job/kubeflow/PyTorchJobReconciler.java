package io.kubequeue.job.kubeflow;

import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.kubequeue.job.JobFeed;
import io.kubequeue.job.JobReconciler;

/** Feeds every PyTorchJob to the scheduler (annotation and status changes included). */
@ControllerConfiguration(name = "pytorchjob", generationAwareEventProcessing = false)
public class PyTorchJobReconciler extends JobReconciler<PyTorchJob> {

    public PyTorchJobReconciler(JobFeed feed, PyTorchJobKind kind) {
        super(feed, kind);
    }
}
