package io.kubequeue.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kubequeue.input.InvalidJobException;
import io.kubequeue.resources.PodDefaults;
import io.kubequeue.scheduler.model.Resources;

/** The pod-set rule's corners that the kinds' own tests do not reach. */
class PodSetsTest {

    private static final long GI = 1L << 30;
    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

    private static JsonNode json(String text) {
        return SERIALIZATION.unmarshal(text, JsonNode.class);
    }

    private static FieldPath path(String text) {
        return FieldPath.parse(text);
    }

    /**
     * A pod set of nested pod sets only (AppWrapper: each component, then each of its podSets) has no template of its
     * own: the templates it reaches are its nested sets' (read for the cached copy and the priority). This threw a
     * NullPointerException, so an AppWrapper-shaped declared kind failed on every object the informer cached.
     */
    @Test
    void aPodSetOfNestedPodSetsOnlyReachesItsNestedTemplates() {
        PodSets sets = new PodSets(List.of(new PodSets.Rule("components", path("spec.components[*]"), null, null, null,
                false, List.of(), List.of(new PodSets.Rule("podSets", path("podSets[*]"), null, path("path"), null,
                false, List.of(new PodSets.Count(path("replicas"), 1, null)), List.of())))));
        JsonNode job = json("""
                {"spec": {"components": [
                  {"podSets": [{"path": "template.spec.template", "replicas": 2}],
                   "template": {"spec": {"template": {"spec": {"priorityClassName": "high",
                       "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}}}},
                  {"template": {"kind": "ConfigMap"}}]}}
                """);
        List<FieldPath.Match> templates = sets.templates(job);
        assertEquals(1, templates.size());
        assertEquals("spec.components[0].template.spec.template", templates.get(0).at());
        assertEquals("high", templates.get(0).node().path("spec").path("priorityClassName").asText());
        assertEquals(Resources.of("cpu", 2000L), sets.request(job, PodDefaults.NONE, SERIALIZATION));
    }

    /**
     * A per-pod ResourceRequirements ({@code resources}, TrainJob's {@code resourcesPerNode}) is the pod's one
     * container's: its requests, a limit standing in for a missing request, and its cpu and memory limits carried as
     * {@code limits.cpu} and {@code limits.memory}, as for a pod from a template (a ResourceQuota on limits counts
     * them). The limits were dropped.
     */
    @Test
    void perPodResourcesAreChargedAsAContainersRequestsAndLimits() {
        PodSets sets = new PodSets(List.of(new PodSets.Rule("nodes", null, null, null, path("spec.perNode"), false,
                List.of(new PodSets.Count(path("spec.nodes"), 1, null)), List.of())));
        JsonNode job = json("""
                {"spec": {"nodes": 3, "perNode": {"requests": {"cpu": "2", "memory": "4Gi"},
                                                  "limits": {"cpu": "4", "memory": "8Gi", "nvidia.com/gpu": 1}}}}
                """);
        // 3 × (requests cpu 2, memory 4Gi, gpu 1 (its limit); limits cpu 4, memory 8Gi)
        assertEquals(Resources.of("cpu", 6000L, "memory", 12 * GI, "nvidia.com/gpu", 3L, "limits.cpu", 12000L,
                "limits.memory", 24 * GI), sets.request(job, PodDefaults.NONE, SERIALIZATION));

        JsonNode limitsOnly = json("{\"spec\": {\"perNode\": {\"limits\": {\"cpu\": \"1\"}}}}");
        assertEquals(Resources.of("cpu", 1000L, "limits.cpu", 1000L),
                sets.request(limitsOnly, PodDefaults.NONE, SERIALIZATION));

        JsonNode huge = json("{\"spec\": {\"perNode\": {\"limits\": {\"cpu\": \"1e999999999\"}}}}");
        InvalidJobException e = assertThrows(InvalidJobException.class,
                () -> sets.request(huge, PodDefaults.NONE, SERIALIZATION));
        assertTrue(e.getMessage().startsWith("spec.perNode.limits.cpu:"), e.getMessage());
    }
}
