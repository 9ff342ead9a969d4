package io.kubequeue.job;

import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;

import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kubequeue.input.JsonBounds;

/**
 * {@link Pruning} of pod templates written as JSON (a Kubeflow replica's {@code template}, which the typed model
 * keeps as a tree): the same fields are kept as {@link Pruning#podSpec} keeps, in their order, and each quantity text
 * is shared.
 */
final class PrunedPodTemplates {

    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
    private static final Map<String, TextNode> TEXTS = new ConcurrentHashMap<>();

    private PrunedPodTemplates() {
    }

    /** See {@link Pruning#podTemplate}. */
    static JsonNode podTemplate(JsonNode template, KubernetesSerialization serialization) {
        if (!readsAs(template, PodTemplateSpec.class, serialization)) {
            return template; // kept, and refused the same way when read
        }
        ObjectNode copy = JSON.objectNode();
        JsonNode spec = template.get("spec");
        if (spec != null) {
            copy.set("spec", podSpec(spec));
        }
        return copy;
    }

    /** See {@link Pruning#resourceRequirements}. */
    static JsonNode resourceRequirements(JsonNode resources, KubernetesSerialization serialization) {
        if (!readsAs(resources, ResourceRequirements.class, serialization)) {
            return resources; // kept, and refused the same way when read
        }
        return requirements(resources);
    }

    /**
     * Whether the node is an object no deeper than a template may be and fabric8 reads it as {@code type}: only then is
     * it pruned; anything else is kept as it is, so its reader refuses it with the same message.
     */
    private static boolean readsAs(JsonNode node, Class<?> type, KubernetesSerialization serialization) {
        if (node == null || !node.isObject()
                || JsonBounds.depth(node, JsonBounds.MAX_TEMPLATE_DEPTH) > JsonBounds.MAX_TEMPLATE_DEPTH) {
            return false;
        }
        try {
            serialization.convertValue(node, type);
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** {@link Pruning#podSpec} on JSON: keeps the read fields, in their order, of a spec known to read as one. */
    private static JsonNode podSpec(JsonNode spec) {
        if (!spec.isObject()) {
            return spec;
        }
        ObjectNode copy = JSON.objectNode();
        for (Iterator<Map.Entry<String, JsonNode>> it = spec.fields(); it.hasNext();) {
            Map.Entry<String, JsonNode> field = it.next();
            switch (field.getKey()) {
                case "containers" -> copy.set(field.getKey(), containers(field.getValue(), false));
                case "initContainers" -> copy.set(field.getKey(), containers(field.getValue(), true));
                case "resources" -> copy.set(field.getKey(), requirements(field.getValue()));
                case "overhead", "priorityClassName", "priority", "runtimeClassName" ->
                        copy.set(field.getKey(), field.getValue());
                default -> {
                    // not read
                }
            }
        }
        return copy;
    }

    private static JsonNode containers(JsonNode containers, boolean init) {
        if (!containers.isArray()) {
            return containers;
        }
        var copy = JSON.arrayNode(containers.size());
        for (JsonNode container : containers) {
            if (!container.isObject()) {
                copy.add(container);
                continue;
            }
            ObjectNode kept = copy.addObject();
            JsonNode resources = container.get("resources");
            if (resources != null) {
                kept.set("resources", requirements(resources));
            }
            JsonNode restartPolicy = container.get("restartPolicy");
            if (init && restartPolicy != null) {
                kept.set("restartPolicy", restartPolicy);
            }
        }
        return copy;
    }

    private static JsonNode requirements(JsonNode resources) {
        if (!resources.isObject()) {
            return resources;
        }
        ObjectNode copy = JSON.objectNode();
        for (String name : List.of("requests", "limits")) {
            JsonNode amounts = resources.get(name);
            if (amounts != null) {
                copy.set(name, quantities(amounts));
            }
        }
        return copy;
    }

    /** JSON quantities as cached: an object of them with each text value shared; anything else as written. */
    private static JsonNode quantities(JsonNode amounts) {
        if (!amounts.isObject()) {
            return amounts;
        }
        ObjectNode copy = JSON.objectNode();
        for (Iterator<Map.Entry<String, JsonNode>> it = amounts.fields(); it.hasNext();) {
            Map.Entry<String, JsonNode> amount = it.next();
            JsonNode value = amount.getValue();
            if (value.isTextual()) {
                TextNode known = TEXTS.get(value.textValue());
                if (known == null && TEXTS.size() < Pruning.SHARED_LIMIT) {
                    TextNode raced = TEXTS.putIfAbsent(value.textValue(), (TextNode) value);
                    known = raced == null ? (TextNode) value : raced;
                }
                copy.set(amount.getKey(), known == null ? value : known);
            } else {
                copy.set(amount.getKey(), value);
            }
        }
        return copy;
    }
}
