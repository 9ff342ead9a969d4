package io.kubequeue.quota;

import java.util.List;
import java.util.Map;

import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * {@code scheduling.sigs.k8s.io/v1beta1 ElasticQuotaTree}: ACK's quota tree, read from {@code kube-system}.
 * No public CRD exists; this class is the model (seed: "ElasticQuota" example).
 */
@Group("scheduling.sigs.k8s.io")
@Version("v1beta1")
@Kind("ElasticQuotaTree")
@Plural("elasticquotatrees")
public class ElasticQuotaTree extends CustomResource<ElasticQuotaTree.Spec, Void> implements Namespaced {

    /** The tree: one root node. */
    public static class Spec {
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
    public static class Node {
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
