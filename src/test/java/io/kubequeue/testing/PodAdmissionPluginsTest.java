package io.kubequeue.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.LimitRangeBuilder;
import io.fabric8.kubernetes.api.model.LimitRangeItemBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.node.v1.RuntimeClassBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;

/**
 * The test API server admits pods as kube-apiserver's defaulting, LimitRanger and RuntimeClass plugins do
 * (Kubernetes docs "Limit Ranges", "Configure Default CPU Requests and Limits for a Namespace", "Pod Overhead").
 */
class PodAdmissionPluginsTest {

    private KubernetesMockServer server;
    private KubernetesClient client;

    @BeforeEach
    void start() {
        server = StrictApiServer.started();
        client = server.createClient();
    }

    @AfterEach
    void stop() {
        client.close();
        server.destroy();
    }

    private void limitRange(String name, String namespace, Map<String, String> defaultLimit,
                            Map<String, String> defaultRequest) {
        client.limitRanges().inNamespace(namespace).resource(new LimitRangeBuilder().withNewMetadata().withName(name)
                .endMetadata().withNewSpec().withLimits(new LimitRangeItemBuilder().withType("Container")
                        .withDefault(quantities(defaultLimit)).withDefaultRequest(quantities(defaultRequest)).build())
                .endSpec().build()).create();
    }

    private static Map<String, Quantity> quantities(Map<String, String> values) {
        java.util.Map<String, Quantity> result = new java.util.LinkedHashMap<>();
        values.forEach((k, v) -> result.put(k, new Quantity(v)));
        return result;
    }

    private Pod create(String namespace, Container container, Container init, String runtimeClass,
                       Map<String, String> overhead) {
        PodBuilder pod = new PodBuilder().withNewMetadata().withName("p").endMetadata().withNewSpec()
                .withContainers(container).withRuntimeClassName(runtimeClass)
                .withOverhead(overhead == null ? null : quantities(overhead)).endSpec();
        if (init != null) {
            pod.editSpec().withInitContainers(init).endSpec();
        }
        return client.pods().inNamespace(namespace).resource(pod.build()).create();
    }

    private static Container container(Map<String, String> requests, Map<String, String> limits) {
        return new ContainerBuilder().withName("c").withImage("busybox").withNewResources()
                .withRequests(quantities(requests)).withLimits(quantities(limits)).endResources().build();
    }

    private static String cpu(Map<String, Quantity> quantities) {
        Quantity q = quantities == null ? null : quantities.get("cpu");
        return q == null ? null : q.toString();
    }

    @Test
    void aContainerWithoutResourcesGetsTheNamespacesDefaultRequestAndLimitAndOtherNamespacesNothing() {
        limitRange("defaults", "team-a", Map.of("cpu", "2"), Map.of("cpu", "1"));
        Pod pod = create("team-a", container(Map.of(), Map.of()), null, null, null);
        assertEquals("1", cpu(pod.getSpec().getContainers().get(0).getResources().getRequests()));
        assertEquals("2", cpu(pod.getSpec().getContainers().get(0).getResources().getLimits()));
        Pod elsewhere = create("team-b", container(Map.of(), Map.of()), null, null, null);
        assertNull(cpu(elsewhere.getSpec().getContainers().get(0).getResources().getRequests()));
    }

    @Test
    void aDefaultLimitWithoutDefaultRequestGivesTheRequestTooAndAnOwnLimitComesBeforeTheDefaultRequest() {
        limitRange("limit-only", "team-a", Map.of("cpu", "2"), Map.of());
        Pod pod = create("team-a", container(Map.of(), Map.of()), null, null, null);
        assertEquals("2", cpu(pod.getSpec().getContainers().get(0).getResources().getRequests()));
        client.pods().inNamespace("team-a").withName("p").delete();
        client.limitRanges().inNamespace("team-a").withName("limit-only").delete();
        limitRange("both", "team-a", Map.of("cpu", "2"), Map.of("cpu", "1"));
        // the container's own limit becomes its request before LimitRanger runs: 3, not the default 1
        Pod own = create("team-a", container(Map.of(), Map.of("cpu", "3")), null, null, null);
        assertEquals("3", cpu(own.getSpec().getContainers().get(0).getResources().getRequests()));
        assertEquals("3", cpu(own.getSpec().getContainers().get(0).getResources().getLimits()));
    }

    @Test
    void initContainersGetTheDefaultsAndTheFirstListedLimitRangeFillsFirst() {
        limitRange("a-first", "team-a", Map.of(), Map.of("cpu", "1"));
        limitRange("b-second", "team-a", Map.of(), Map.of("cpu", "3", "memory", "1Gi"));
        Pod pod = create("team-a", container(Map.of(), Map.of()), container(Map.of(), Map.of()).toBuilder()
                .withName("init").build(), null, null);
        var requests = pod.getSpec().getContainers().get(0).getResources().getRequests();
        assertEquals("1", cpu(requests), "the first LimitRange listed fills cpu; the second fills only what is left");
        assertEquals("1Gi", requests.get("memory").toString());
        assertEquals("1", cpu(pod.getSpec().getInitContainers().get(0).getResources().getRequests()));
    }

    @Test
    void aRuntimeClassOverheadIsSetAndAnUnknownClassOrAnotherOverheadIsRefused() {
        client.resource(new RuntimeClassBuilder().withNewMetadata().withName("kata").endMetadata().withHandler("kata")
                .withNewOverhead().withPodFixed(quantities(Map.of("cpu", "250m", "memory", "120Mi"))).endOverhead()
                .build()).create();
        Pod pod = create("team-a", container(Map.of("cpu", "1"), Map.of()), null, "kata", null);
        assertEquals("250m", cpu(pod.getSpec().getOverhead()));
        client.pods().inNamespace("team-a").withName("p").delete();
        assertEquals("250m", cpu(create("team-a", container(Map.of(), Map.of()), null, "kata",
                Map.of("cpu", "0.25", "memory", "120Mi")).getSpec().getOverhead()), "the same overhead is accepted");
        client.pods().inNamespace("team-a").withName("p").delete();

        KubernetesClientException unknown = assertThrows(KubernetesClientException.class,
                () -> create("team-a", container(Map.of(), Map.of()), null, "gvisor", null));
        assertEquals(403, unknown.getCode());
        assertTrue(unknown.getMessage().contains("RuntimeClass \"gvisor\" not found"), unknown.getMessage());
        KubernetesClientException other = assertThrows(KubernetesClientException.class,
                () -> create("team-a", container(Map.of(), Map.of()), null, "kata", Map.of("cpu", "1")));
        assertEquals(403, other.getCode());
        assertTrue(client.pods().inNamespace("team-a").list().getItems().isEmpty(), "a refused pod is not stored");
    }
}
