package io.kubequeue.job.kubeflow;

import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.kubequeue.job.JobFeed;
import io.kubequeue.job.JobReconciler;

/** Feeds every MPIJob to the scheduler (annotation and status changes included). */
@ControllerConfiguration(name = "mpijob", generationAwareEventProcessing = false)
public class MPIJobReconciler extends JobReconciler<MPIJob> {

    public MPIJobReconciler(JobFeed feed, MPIJobKind kind) {
        super(feed, kind);
    }
}
