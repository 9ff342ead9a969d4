package io.kubequeue.quota;

import io.fabric8.crdv2.generator.CRDPostProcessor;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;

/**
 * Build time only: the CRD generator's hook ({@code quarkus.operator-sdk.crd.post-processor}) that
 * gives every quantity in a generated CRD the format check Kubernetes' own CRDs carry for
 * {@code resource.Quantity}: {@code x-kubernetes-int-or-string} plus {@link ElasticQuotaTree#QUANTITY} as
 * {@code pattern}. The fabric8 generator emits the int-or-string part but puts no pattern on map values
 * ({@code min}/{@code max} are maps of quantities), so {@code cpu: four} would otherwise be stored and only
 * refused by kube-queue when it reads the tree.
 *
 * <p>Never loaded at run time: the generator's API is a build-time ({@code provided}) dependency.
 */
public class QuantityPatternPostProcessor implements CRDPostProcessor {

    @Override
    public HasMetadata process(HasMetadata crd, String crdSpecVersion) {
        if (crd instanceof CustomResourceDefinition definition) {
            definition.getSpec().getVersions().forEach(v -> addPattern(v.getSchema().getOpenAPIV3Schema()));
        }
        return crd;
    }

    private static void addPattern(JSONSchemaProps schema) {
        if (schema == null) {
            return;
        }
        if (Boolean.TRUE.equals(schema.getXKubernetesIntOrString())) {
            schema.setPattern(ElasticQuotaTree.QUANTITY);
        }
        if (schema.getProperties() != null) {
            schema.getProperties().values().forEach(QuantityPatternPostProcessor::addPattern);
        }
        if (schema.getItems() != null) {
            addPattern(schema.getItems().getSchema());
        }
        if (schema.getAdditionalProperties() != null) {
            addPattern(schema.getAdditionalProperties().getSchema());
        }
    }
}
