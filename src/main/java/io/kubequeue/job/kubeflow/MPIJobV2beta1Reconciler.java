package io.kubequeue.job.kubeflow;

import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.kubequeue.job.JobFeed;
import io.kubequeue.job.JobReconciler;

/** Feeds every v2beta1 MPIJob to the scheduler (annotation and status changes included). */
@ControllerConfiguration(name = "mpijob-v2beta1", generationAwareEventProcessing = false)
public class MPIJobV2beta1Reconciler extends JobReconciler<MPIJobV2beta1> {

    public MPIJobV2beta1Reconciler(JobFeed feed, MPIJobV2beta1Kind kind) {
        super(feed, kind);
    }
}
