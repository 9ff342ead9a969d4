package io.kubequeue.job.declared;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

/** Declarations {@link DeclaredJobKind#of} refuses, each naming the field. */
class InvalidDeclarationsTest {

    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    /** A valid declaration, changed by each case. */
    private static final String VALID = """
            {"group": "example.com", "version": "v1alpha1", "kind": "Batch", "plural": "batches",
             "hold": {"field": "spec.suspend"},
             "podSets": [{"name": "groups", "each": "spec.groups[*]", "template": "template",
                          "counts": [{"field": "replicas", "default": 1}]}],
             "finished": {"conditions": ["Complete"]},
             "pods": {"labelKey": "example.com/batch"}}
            """;

    private static ObjectNode valid() {
        return SERIALIZATION.unmarshal(VALID, ObjectNode.class);
    }

    private static DeclaredJobKind of(ObjectNode spec) {
        return DeclaredJobKind.of("test", SERIALIZATION.convertValue(spec, QueuedKindSpec.class), SERIALIZATION);
    }

    private static ObjectNode podSet(ObjectNode spec) {
        return (ObjectNode) spec.get("podSets").get(0);
    }

    /** {@code depth} levels of pod sets, each the only one of its level. */
    private static ObjectNode nested(int depth) {
        ObjectNode spec = valid();
        ObjectNode set = podSet(spec);
        for (int level = 2; level <= depth; level++) {
            ObjectNode inner = JSON.objectNode().put("each", "items[*]").put("template", "template");
            set.set("podSets", JSON.arrayNode().add(inner));
            set = inner;
        }
        return spec;
    }

    /**
     * Four levels are allowed (PodSets.MAX_NESTING): the fourth level's pod set, which has no nested ones, was
     * refused as a fifth level, naming its absent podSets field.
     */
    @Test
    void podSetsNestFourLevelsAtMost() {
        assertEquals("Batch", of(nested(4)).kind());
        InvalidDeclarationException e = assertThrows(InvalidDeclarationException.class, () -> of(nested(5)));
        assertEquals("spec.podSets[0].podSets[0].podSets[0].podSets[0].podSets", e.field(), e.getMessage());
        assertTrue(e.getMessage().contains("at most 4 levels"), e.getMessage());
    }
}
