package io.kubequeue.job.kubeflow;

import jakarta.inject.Singleton;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubequeue.job.SuspendMark;

/** kubeflow.org/v1 TFJob: replicas under {@code spec.tfReplicaSpecs}. */
@Singleton
public class TFJobKind extends KubeflowJobKind<TFJob> {

    public TFJobKind(KubernetesClient client) {
        super(client.getKubernetesSerialization(), "tfReplicaSpecs");
    }

    @Override
    public String kind() {
        return "TFJob";
    }

    @Override
    public boolean showsQueuing(TFJob job) {
        return SuspendMark.annotated(job);
    }

    @Override
    public Class<TFJob> type() {
        return TFJob.class;
    }
}
