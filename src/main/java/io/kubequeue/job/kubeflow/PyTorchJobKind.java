package io.kubequeue.job.kubeflow;

import jakarta.inject.Singleton;

import io.fabric8.kubernetes.client.KubernetesClient;

/** kubeflow.org/v1 PyTorchJob: replicas under {@code spec.pytorchReplicaSpecs}; shows condition {@code Queuing}. */
@Singleton
public class PyTorchJobKind extends KubeflowJobKind<PyTorchJob> {

    public PyTorchJobKind(KubernetesClient client) {
        super(client.getKubernetesSerialization(), "PyTorchJob", PyTorchJob.class, PyTorchJob::new, "pytorchReplicaSpecs", true);
    }
}
