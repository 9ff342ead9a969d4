package io.kubequeue.input;

import jakarta.inject.Singleton;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.quarkus.kubernetes.client.KubernetesClientObjectMapperCustomizer;

/**
 * Gives the Kubernetes client's ObjectMapper {@link JsonBounds}. Quarkus' kubernetes-client extension builds
 * fabric8's {@code KubernetesSerialization} from this mapper, so the bounds reach every informer (JOSDK's and
 * kube-queue's own), list, watch and {@code convertValue} of that client.
 */
@Singleton
public class ClientJsonBounds implements KubernetesClientObjectMapperCustomizer {

    @Override
    public void customize(ObjectMapper mapper) {
        JsonBounds.apply(mapper);
    }
}
