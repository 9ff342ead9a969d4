package io.kubequeue.job.kubeflow;

import jakarta.inject.Singleton;

import io.fabric8.kubernetes.client.KubernetesClient;

/** kubeflow.org/v1 TFJob: replicas under {@code spec.tfReplicaSpecs}; shows condition {@code Queuing}. */
@Singleton
public class TFJobKind extends KubeflowJobKind<TFJob> {

    public TFJobKind(KubernetesClient client) {
        super(client.getKubernetesSerialization(), "TFJob", TFJob.class, TFJob::new, "tfReplicaSpecs", true);
    }
}
