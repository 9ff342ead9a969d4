package io.kubequeue.job.kubeflow;

import jakarta.inject.Singleton;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubequeue.job.SuspendMark;

/** kubeflow.org/v1 PyTorchJob: replicas under {@code spec.pytorchReplicaSpecs}. */
@Singleton
public class PyTorchJobKind extends KubeflowJobKind<PyTorchJob> {

    public PyTorchJobKind(KubernetesClient client) {
        super(client.getKubernetesSerialization(), "pytorchReplicaSpecs");
    }

    @Override
    public String kind() {
        return "PyTorchJob";
    }

    @Override
    public boolean showsQueuing(PyTorchJob job) {
        return SuspendMark.annotated(job);
    }

    @Override
    public Class<PyTorchJob> type() {
        return PyTorchJob.class;
    }
}
