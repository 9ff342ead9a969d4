package io.kubequeue.operator;

import java.io.InputStream;
import java.util.List;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubequeue.job.JobKinds;
import io.kubequeue.quota.elastic.ElasticQuotaTree;

/**
 * Reads Kubernetes manifests (YAML or JSON, several documents, {@code kind: List}) into typed objects with
 * fabric8, the job kinds and the ElasticQuotaTree included, so they can be created or examined.
 */
public final class Manifests {

    private Manifests() {
    }

    /**
     * Teaches the client's serialization kube-queue's own and foreign custom kinds: the custom resource type of
     * every registered job kind ({@link JobKinds#registerTypes}), the ElasticQuotaTree and the QueuedKind;
     * idempotent.
     */
    public static void registerKinds(KubernetesClient client) {
        JobKinds.registerTypes(client);
        client.getKubernetesSerialization().registerKubernetesResource(ElasticQuotaTree.class);
        client.getKubernetesSerialization().registerKubernetesResource(
                io.kubequeue.job.declared.QueuedKind.class);
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
