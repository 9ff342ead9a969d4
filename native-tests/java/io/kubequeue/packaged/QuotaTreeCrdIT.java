package io.kubequeue.packaged;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceColumnDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;

/**
 * Issue 29, item 3: the generated ElasticQuotaTree CRD explains itself ({@code kubectl explain} prints each field's
 * {@code description}) and lists its columns in a reader's order, AGE last.
 */
class QuotaTreeCrdIT {

    private final CustomResourceDefinitionVersion version = ((CustomResourceDefinition) Rendered.of(Rendered.generatedCrd())
            .objects().get(0)).getSpec().getVersions().get(0);

    @Test
    void everyFieldOfTheSpecAndStatusHasADescription() {
        JSONSchemaProps schema = version.getSchema().getOpenAPIV3Schema();
        List<String> undescribed = new ArrayList<>();
        collectUndescribed("", schema, undescribed);
        assertEquals(List.of(), undescribed, "kubectl explain would print <empty> for these");
        assertTrue(schema.getDescription().startsWith("A tree of quota groups"), schema.getDescription());
    }

    @Test
    void theColumnsReadFullestFirstAndAgeLastAlsoWide() {
        assertEquals(List.of("Fullest", "Pending", "Admitted", "Groups", "Accepted", "Usage", "Age"),
                version.getAdditionalPrinterColumns().stream().map(CustomResourceColumnDefinition::getName).toList());
        assertEquals(".status.conditions[?(@.type==\"Accepted\")].status",
                version.getAdditionalPrinterColumns().get(4).getJsonPath());
    }

    /** Fields below spec and status with no description; metadata, and the items of a list or map, are not fields. */
    private static void collectUndescribed(String path, JSONSchemaProps schema, List<String> out) {
        if (schema.getProperties() == null) {
            return;
        }
        for (Map.Entry<String, JSONSchemaProps> field : schema.getProperties().entrySet()) {
            String at = path.isEmpty() ? field.getKey() : path + "." + field.getKey();
            if (at.equals("metadata") || at.equals("apiVersion") || at.equals("kind")
                    || at.startsWith("status.conditions.")) {
                continue; // ObjectMeta's and metav1.Condition's own fields, which the API server documents
            }
            if (field.getValue().getDescription() == null || field.getValue().getDescription().isBlank()) {
                out.add(at);
            }
            collectUndescribed(at, field.getValue(), out);
            if (field.getValue().getItems() != null && field.getValue().getItems().getSchema() != null) {
                collectUndescribed(at, field.getValue().getItems().getSchema(), out);
            }
        }
    }
}
