package io.kubequeue.job.kubeflow;

import jakarta.inject.Singleton;

import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * kubeflow.org/v2beta1 MPIJob: replicas under {@code spec.mpiReplicaSpecs}, suspended by the annotation or
 * {@code spec.runPolicy.suspend} like the v1 kinds. Its key kind is {@code MPIJob}, as for v1: only one of the
 * two versions is ever served.
 */
@Singleton
public class MPIJobV2beta1Kind extends KubeflowJobKind<MPIJobV2beta1> {

    public MPIJobV2beta1Kind(KubernetesClient client) {
        super(client.getKubernetesSerialization(), "MPIJob", MPIJobV2beta1.class, MPIJobV2beta1::new, "mpiReplicaSpecs");
    }
}
