package io.kubequeue.job;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kubequeue.resources.PodDefaults;
import io.kubequeue.scheduler.model.Resources;

/** The pod-set rule's corners that the kinds' own tests do not reach. */
class PodSetsTest {

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
}
