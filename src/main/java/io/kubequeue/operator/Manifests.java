package io.kubequeue.operator;

import java.io.InputStream;
import java.util.List;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubequeue.job.argo.Workflow;
import io.kubequeue.job.kubeflow.MPIJob;
import io.kubequeue.job.kubeflow.MPIJobV2beta1;
import io.kubequeue.job.kubeflow.PyTorchJob;
import io.kubequeue.job.kubeflow.TFJob;
import io.kubequeue.quota.elastic.ElasticQuotaTree;

/**
 * Reads Kubernetes manifests (YAML or JSON, several documents, {@code kind: List}) into typed objects with
 * fabric8, the job kinds and the ElasticQuotaTree included, so they can be created or examined.
 */
public final class Manifests {

    private Manifests() {
    }

    /** Teaches the client's serialization kube-queue's own and foreign custom kinds; idempotent. */
    public static void registerKinds(KubernetesClient client) {
        client.getKubernetesSerialization().registerKubernetesResource(TFJob.class);
        client.getKubernetesSerialization().registerKubernetesResource(PyTorchJob.class);
        client.getKubernetesSerialization().registerKubernetesResource(MPIJob.class);
        client.getKubernetesSerialization().registerKubernetesResource(MPIJobV2beta1.class);
        client.getKubernetesSerialization().registerKubernetesResource(Workflow.class);
        client.getKubernetesSerialization().registerKubernetesResource(ElasticQuotaTree.class);
    }

    /**
     * @param in the manifest stream; not closed
     * @return every object, lists flattened, in document order
     * @throws io.fabric8.kubernetes.client.KubernetesClientException if the text is not a manifest
     */
    public static List<HasMetadata> read(KubernetesClient client, InputStream in) {
        registerKinds(client);
        return client.load(in).items();
    }
}
