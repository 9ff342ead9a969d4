package io.kubequeue.job.kubeflow;

import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.kubequeue.job.JobFeed;
import io.kubequeue.job.JobReconciler;

/** Feeds every TFJob to the scheduler (annotation and status changes included). */
@ControllerConfiguration(name = "tfjob", generationAwareEventProcessing = false)
public class TFJobReconciler extends JobReconciler<TFJob> {

    public TFJobReconciler(JobFeed feed, TFJobKind kind) {
        super(feed, kind);
    }
}
