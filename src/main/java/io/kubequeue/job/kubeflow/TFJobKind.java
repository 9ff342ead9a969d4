package io.kubequeue.job.kubeflow;

import jakarta.inject.Singleton;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubequeue.job.ShowsQueuingCondition;
import io.kubequeue.job.SuspendMark;

/** kubeflow.org/v1 TFJob: replicas under {@code spec.tfReplicaSpecs}; shows condition {@code Queuing}. */
@Singleton
public class TFJobKind extends KubeflowJobKind<TFJob> implements ShowsQueuingCondition<TFJob> {

    public TFJobKind(KubernetesClient client) {
        super(client.getKubernetesSerialization(), "TFJob", TFJob.class, TFJob::new, "tfReplicaSpecs");
    }

    /**
     * Only a job queued by the annotation, the lever ack-arena's tf-operator reads (docs/behaviour.md §5); one
     * held by {@code spec.runPolicy.suspend} shows what training-operator writes.
     */
    @Override
    public boolean showsQueuing(TFJob job) {
        return SuspendMark.annotated(job);
    }
}
