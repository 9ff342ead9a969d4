package io.kubequeue.admission;

import java.util.Map;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The pieces the job patches ({@link AdmissionPatch}, {@link EvictionPatch}) are built of: JSON Patch operations
 * (RFC 6902) as Jackson nodes, and RFC 6901 pointers to annotations.
 */
final class JsonPatchOps {

    static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    private JsonPatchOps() {
    }

    /** One operation, e.g. {@code {"op":"test","path":"/metadata/uid"}}; the caller puts its {@code value}. */
    static ObjectNode op(String op, String path) {
        return JSON.objectNode().put("op", op).put("path", path);
    }

    /**
     * Sets these annotations: one {@code add} per key on a job that has an annotation map ({@code add} replaces a
     * key that exists), else one {@code add} of the whole map (an {@code add} under a missing member is refused).
     */
    static void addAnnotations(ArrayNode ops, boolean mapPresent, Map<String, String> annotations) {
        if (mapPresent) {
            annotations.forEach((key, value) -> ops.add(op("add", annotation(key)).put("value", value)));
        } else {
            ObjectNode map = JSON.objectNode();
            annotations.forEach(map::put);
            ops.add(op("add", "/metadata/annotations").set("value", map));
        }
    }

    /** The pointer to one annotation, e.g. {@code /metadata/annotations/kube-queue~1quota-group}. */
    static String annotation(String key) {
        return "/metadata/annotations/" + key.replace("~", "~0").replace("/", "~1");
    }
}
