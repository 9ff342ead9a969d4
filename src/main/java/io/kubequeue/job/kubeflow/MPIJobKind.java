package io.kubequeue.job.kubeflow;

import jakarta.inject.Singleton;

import io.fabric8.kubernetes.client.KubernetesClient;

/** kubeflow.org/v1 MPIJob: replicas under {@code spec.mpiReplicaSpecs}. */
@Singleton
public class MPIJobKind extends KubeflowJobKind<MPIJob> {

    public MPIJobKind(KubernetesClient client) {
        super(client.getKubernetesSerialization(), "MPIJob", MPIJob.class, MPIJob::new, "mpiReplicaSpecs");
    }
}
