package io.kubequeue.quota;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

import io.fabric8.crd.generator.annotation.SchemaSwap;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;
import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * {@code scheduling.sigs.k8s.io/v1beta1 ElasticQuotaTree}: ACK's quota tree, read from {@code kube-system}.
 * No public CRD exists; this class is the model (seed: "ElasticQuota" example), and the CRD shipped in every
 * install path is generated from it at {@code package} (QOSDK, fabric8 crd-generator).
 *
 * <p>Schema: every node needs a {@code name}; {@code min}/{@code max} values must be Kubernetes quantities
 * (the pattern {@code resource.Quantity} uses in Kubernetes' own CRDs). An OpenAPI schema cannot recurse, so
 * {@code children} is spelled out {@value #SCHEMA_DEPTH} levels below the root; nodes deeper than that are kept
 * as written (not pruned) and checked by kube-queue when it reads the tree, which answers a bad one with a
 * Warning event.
 */
@SchemaSwap(originalType = ElasticQuotaTree.Node.class, fieldName = "children", targetType = JsonNode.class,
        depth = ElasticQuotaTree.SCHEMA_DEPTH)
@Group("scheduling.sigs.k8s.io")
@Version("v1beta1")
@Kind("ElasticQuotaTree")
@Plural("elasticquotatrees")
public class ElasticQuotaTree extends CustomResource<ElasticQuotaTree.Spec, Void> implements Namespaced {

    /** Levels of {@code children} below the root that the CRD's schema validates. */
    public static final int SCHEMA_DEPTH = 6;

    /** A Kubernetes quantity, as {@code resource.Quantity}'s OpenAPI pattern has it (e.g. {@code 4}, {@code 500m}, {@code 4Gi}). */
    public static final String QUANTITY = "^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$";

    /** The tree: one root node. */
    @RegisterForReflection // read by Jackson, also in the native image
    public static class Spec {
        @Required
        private Node root;

        public Node getRoot() {
            return root;
        }

        public void setRoot(Node root) {
            this.root = root;
        }
    }

    /**
     * One quota group.
     * {@code min}/{@code max} are Kubernetes resource lists; {@code children} may be null (as in the seed).
     */
    @RegisterForReflection
    public static class Node {
        @Required
        @Size(min = 1)
        private String name;
        private List<String> namespaces;
        private Map<String, Quantity> min;
        private Map<String, Quantity> max;
        private List<Node> children;

        public String getName() {
            return name;
        }

        public void setName(String name) {
            this.name = name;
        }

        public List<String> getNamespaces() {
            return namespaces;
        }

        public void setNamespaces(List<String> namespaces) {
            this.namespaces = namespaces;
        }

        public Map<String, Quantity> getMin() {
            return min;
        }

        public void setMin(Map<String, Quantity> min) {
            this.min = min;
        }

        public Map<String, Quantity> getMax() {
            return max;
        }

        public void setMax(Map<String, Quantity> max) {
            this.max = max;
        }

        public List<Node> getChildren() {
            return children;
        }

        public void setChildren(List<Node> children) {
            this.children = children;
        }
    }
}
