package io.kubequeue.job.kubeflow;

import jakarta.inject.Singleton;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubequeue.job.ShowsQueuingCondition;
import io.kubequeue.job.SuspendMark;

/** kubeflow.org/v1 PyTorchJob: replicas under {@code spec.pytorchReplicaSpecs}; shows condition {@code Queuing}. */
@Singleton
public class PyTorchJobKind extends KubeflowJobKind<PyTorchJob> implements ShowsQueuingCondition<PyTorchJob> {

    public PyTorchJobKind(KubernetesClient client) {
        super(client.getKubernetesSerialization(), "PyTorchJob", PyTorchJob.class, PyTorchJob::new, "pytorchReplicaSpecs");
    }

    /**
     * Only a job queued by the annotation, the lever ack-arena's pytorch-operator reads (docs/behaviour.md §5); one
     * held by {@code spec.runPolicy.suspend} shows what training-operator writes.
     */
    @Override
    public boolean showsQueuing(PyTorchJob job) {
        return SuspendMark.annotated(job);
    }
}
