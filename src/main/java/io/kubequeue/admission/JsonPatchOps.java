package io.kubequeue.admission;

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

    /** The pointer to one annotation, e.g. {@code /metadata/annotations/kube-queue~1quota-group}. */
    static String annotation(String key) {
        return "/metadata/annotations/" + key.replace("~", "~0").replace("/", "~1");
    }
}
