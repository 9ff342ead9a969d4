package io.kubequeue.quota.elastic;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.crdv2.generator.CRDPostProcessor;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceColumnDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;

/**
 * Build time only: the CRD generator's hook ({@code quarkus.operator-sdk.crd.post-processor}) that makes every CRD
 * kube-queue generates one a real API server accepts and checks as Kubernetes' own CRDs do. The Helm chart's copy
 * and the OLM bundle are taken from its output, so all three install paths carry what it adds:
 * <ul>
 *   <li>the annotation {@value #API_APPROVAL} on a CRD in a protected group ({@code k8s.io}, {@code kubernetes.io}
 *       or a subdomain of either, such as ACK's {@code scheduling.sigs.k8s.io}): without it the API server refuses
 *       the CRD ("protected groups must have approval annotation"). Its value starts with {@code unapproved}, the
 *       form Kubernetes accepts for an API that no Kubernetes API review approved (KEP-1111);</li>
 *   <li>on every quantity, the format check Kubernetes' own CRDs carry for {@code resource.Quantity}:
 *       {@code x-kubernetes-int-or-string} plus {@link ElasticQuotaTree#QUANTITY} as {@code pattern}. The fabric8
 *       generator emits the int-or-string part but puts no pattern on map values ({@code min}/{@code max} are
 *       maps of quantities), so {@code cpu: four} would otherwise be stored and only refused by kube-queue when it
 *       reads the tree.</li>
 *   <li>on the ElasticQuotaTree, the descriptions {@code kubectl explain} shows for the kind, its spec and its status,
 *       and its printer columns in the order its model declares them.</li>
 * </ul>
 *
 * <p>Never loaded at run time: the generator's API is a build-time ({@code provided}) dependency.
 */
public class CrdPostProcessor implements CRDPostProcessor {

    /** The annotation a CRD in a protected group must carry (apiextensions-apiserver, KEP-1111). */
    public static final String API_APPROVAL = "api-approved.kubernetes.io";

    /**
     * Our value for it: not approved by Kubernetes API reviewers. The group is ACK's ack-kube-queue's, kept so that
     * its users' ElasticQuotaTrees apply unchanged.
     */
    public static final String UNAPPROVED = "unapproved, ElasticQuotaTree keeps ACK ack-kube-queue's API group"
            + " scheduling.sigs.k8s.io so that existing quota trees apply unchanged; not a Kubernetes-reviewed API";

    @Override
    public HasMetadata process(HasMetadata crd, String crdSpecVersion) {
        if (crd instanceof CustomResourceDefinition definition) {
            if (protectedGroup(definition.getSpec().getGroup())) {
                Map<String, String> annotations = definition.getMetadata().getAnnotations() == null
                        ? new LinkedHashMap<>() : new LinkedHashMap<>(definition.getMetadata().getAnnotations());
                annotations.putIfAbsent(API_APPROVAL, UNAPPROVED);
                definition.getMetadata().setAnnotations(annotations);
            }
            definition.getSpec().getVersions().forEach(v -> addPattern(v.getSchema().getOpenAPIV3Schema()));
            if (ElasticQuotaTree.class.getAnnotation(io.fabric8.kubernetes.model.annotation.Kind.class).value()
                    .equals(definition.getSpec().getNames().getKind())) {
                definition.getSpec().getVersions().forEach(CrdPostProcessor::describeTree);
            }
        }
        return crd;
    }

    /**
     * Whether Kubernetes reserves the group for reviewed APIs: {@code k8s.io}, {@code kubernetes.io} and their
     * subdomains (apiextensions-apiserver's {@code IsProtectedCommunityGroup}).
     */
    public static boolean protectedGroup(String group) {
        return group.equals("k8s.io") || group.endsWith(".k8s.io")
                || group.equals("kubernetes.io") || group.endsWith(".kubernetes.io");
    }

    /**
     * The tree's descriptions for {@code kubectl explain}, and its printer columns in the order the model class
     * declares them (the generator sorts them by JSON path, which put AGE first).
     */
    private static void describeTree(CustomResourceDefinitionVersion version) {
        JSONSchemaProps schema = version.getSchema().getOpenAPIV3Schema();
        schema.setDescription(ElasticQuotaTree.DESCRIPTION);
        schema.getProperties().get("spec").setDescription(ElasticQuotaTree.SPEC_DESCRIPTION);
        schema.getProperties().get("status").setDescription(ElasticQuotaTree.STATUS_DESCRIPTION);
        List<String> declared = Arrays.stream(ElasticQuotaTree.class.getAnnotationsByType(AdditionalPrinterColumn.class))
                .map(AdditionalPrinterColumn::name).toList();
        if (version.getAdditionalPrinterColumns() != null) {
            List<CustomResourceColumnDefinition> columns = new ArrayList<>(version.getAdditionalPrinterColumns());
            columns.sort(Comparator.comparingInt(c -> declared.indexOf(c.getName())));
            version.setAdditionalPrinterColumns(columns);
        }
    }

    private static void addPattern(JSONSchemaProps schema) {
        if (schema == null) {
            return;
        }
        if (Boolean.TRUE.equals(schema.getXKubernetesIntOrString())) {
            schema.setPattern(ElasticQuotaTree.QUANTITY);
        }
        if (schema.getProperties() != null) {
            schema.getProperties().values().forEach(CrdPostProcessor::addPattern);
        }
        if (schema.getItems() != null) {
            addPattern(schema.getItems().getSchema());
        }
        if (schema.getAdditionalProperties() != null) {
            addPattern(schema.getAdditionalProperties().getSchema());
        }
    }
}
