package io.kubequeue.job.declared;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;

import io.kubequeue.job.FieldPath;

/**
 * Checks a declaration's paths against its kind's CRD schema (the {@code openAPIV3Schema} of the declared version),
 * so a typo or a wrong type is said when the declaration is made, not at the first job: the hold field must be a
 * boolean, each count an integer, a template or resources an object, a phase field a string. A part of the schema
 * that keeps unknown fields ({@code x-kubernetes-preserve-unknown-fields}) or names no type is not checked further:
 * the path may be right. Bounded: a path has at most {@value FieldPath#MAX_SEGMENTS} segments, each one step down.
 */
final class SchemaCheck {

    private final JsonNode root;

    /** @param openApiV3Schema the version's {@code schema.openAPIV3Schema}, as the CRD holds it */
    SchemaCheck(JsonNode openApiV3Schema) {
        this.root = openApiV3Schema;
    }

    /**
     * What is wrong with the path in the schema: the first field the schema does not have, or the type at the end
     * when it is not {@code type}; empty if the path fits (or cannot be checked).
     *
     * @param from the schema the path starts at (the root, or a pod set's item)
     * @param path the path
     * @param type the JSON schema type the field must have ({@code boolean}, {@code integer}, {@code object},
     *             {@code string}), or null for any
     */
    Optional<String> problem(JsonNode from, FieldPath path, String type) {
        List<JsonNode> at = reach(from, path);
        if (at == null) {
            return Optional.of("the CRD's schema has no field " + path);
        }
        for (JsonNode node : at) {
            String actual = node.path("type").asText("");
            if (type != null && !actual.isEmpty() && !actual.equals(type)
                    && !("integer".equals(type) && "number".equals(actual))) {
                return Optional.of(path + " is " + article(actual) + " in the CRD's schema, not " + article(type));
            }
        }
        return Optional.empty();
    }

    /** The schema nodes the path reaches from {@code from}; empty: not checkable; null: a field the schema lacks. */
    List<JsonNode> reach(JsonNode from, FieldPath path) {
        List<JsonNode> nodes = new ArrayList<>(List.of(from == null ? root : from));
        for (String step : path.steps()) {
            List<JsonNode> next = new ArrayList<>();
            for (JsonNode node : nodes) {
                if (open(node)) {
                    continue; // unknown fields kept here: nothing below is checked
                }
                JsonNode child = switch (step) {
                    case "[*]" -> node.get("items");
                    case "*" -> node.get("additionalProperties");
                    default -> node.path("properties").get(step);
                };
                if (child == null || !child.isObject()) {
                    return null;
                }
                next.add(child);
            }
            if (next.isEmpty()) {
                return List.of();
            }
            nodes = next;
        }
        return nodes;
    }

    private static boolean open(JsonNode node) {
        return node.path("x-kubernetes-preserve-unknown-fields").asBoolean(false) && !node.has("properties")
                && !node.has("items") && !node.has("additionalProperties")
                || !node.has("type") && !node.has("properties") && !node.has("items")
                && !node.has("additionalProperties");
    }

    private static String article(String type) {
        return ("integer".equals(type) || "object".equals(type) || "array".equals(type) ? "an " : "a ") + type;
    }
}
