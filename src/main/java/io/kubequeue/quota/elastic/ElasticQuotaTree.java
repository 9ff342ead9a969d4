package io.kubequeue.quota.elastic;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.crd.generator.annotation.SchemaSwap;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
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
 *
 * <p>{@code status} is written by kube-queue's leader (see {@link QuotaTreeStatusWriter}): per quota group what
 * kube-queue's admitted jobs use against {@code min}/{@code max}, and how many jobs wait and run, so that
 * {@code kubectl get eqt -n kube-system -o wide} answers "how full is my group". The tree's owner never writes it.
 */
@SchemaSwap(originalType = ElasticQuotaTree.Node.class, fieldName = "children", targetType = JsonNode.class,
        depth = ElasticQuotaTree.SCHEMA_DEPTH)
@Group("scheduling.sigs.k8s.io")
@Version("v1beta1")
@Kind("ElasticQuotaTree")
@Plural("elasticquotatrees")
@ShortNames("eqt")
@AdditionalPrinterColumn(name = "Groups", jsonPath = ".status.groups", type = AdditionalPrinterColumn.Type.INTEGER,
        getDescription = "quota groups in the tree")
@AdditionalPrinterColumn(name = "Pending", jsonPath = ".status.pending", type = AdditionalPrinterColumn.Type.INTEGER,
        getDescription = "jobs waiting in the tree's groups")
@AdditionalPrinterColumn(name = "Admitted", jsonPath = ".status.admitted", type = AdditionalPrinterColumn.Type.INTEGER,
        getDescription = "admitted, unfinished jobs charged to the tree's groups")
@AdditionalPrinterColumn(name = "Fullest", jsonPath = ".status.fullest", type = AdditionalPrinterColumn.Type.STRING,
        getDescription = "the group and resource nearest its max, in percent of max")
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = AdditionalPrinterColumn.Type.DATE)
@AdditionalPrinterColumn(name = "Usage", jsonPath = ".status.usage", type = AdditionalPrinterColumn.Type.STRING,
        priority = 1, getDescription = "per group: used/max per resource, pending and admitted jobs")
public class ElasticQuotaTree extends CustomResource<ElasticQuotaTree.Spec, ElasticQuotaTree.Status>
        implements Namespaced {

    /** Levels of {@code children} below the root that the CRD's schema validates. */
    public static final int SCHEMA_DEPTH = 6;
    /** The most quota-group levels a tree may have, root included (docs/security.md, "Hostile input: the bounds"). */
    public static final int MAX_LEVELS = 64;
    /** JSON levels of a spec with {@value #MAX_LEVELS} node levels: two per level (node, children), and room. */
    public static final int MAX_JSON_DEPTH = 2 * MAX_LEVELS + 4;

    /** A Kubernetes quantity, as {@code resource.Quantity}'s OpenAPI pattern has it (e.g. {@code 4}, {@code 500m}, {@code 4Gi}). */
    public static final String QUANTITY = "^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$";

    /**
     * The tree: one root node. Read through {@link BoundedSpecDeserializer}: a tree nested deeper than
     * {@value #MAX_JSON_DEPTH} JSON levels is not read into nodes (Jackson reads nodes recursively, and a tree of a
     * thousand levels overflowed the watch thread's stack); it is marked {@link #tooDeep} instead, which the source
     * reports as an invalid tree.
     */
    @RegisterForReflection // read by Jackson, also in the native image
    @com.fasterxml.jackson.databind.annotation.JsonDeserialize(using = BoundedSpecDeserializer.class)
    public static class Spec {
        @Required
        private Node root;
        @com.fasterxml.jackson.annotation.JsonIgnore
        private boolean tooDeep;

        /** Whether the tree was nested too deep to be read (its root is then null). */
        @com.fasterxml.jackson.annotation.JsonIgnore
        public boolean tooDeep() {
            return tooDeep;
        }

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

    /**
     * What kube-queue's leader last saw of the tree in force: totals for the printer columns, and one entry per
     * quota group. Amounts are Kubernetes quantities ({@code "1500m"}, {@code "3Gi"}); {@code used} counts the jobs
     * kube-queue admitted (descendants included), not other pods.
     */
    @RegisterForReflection
    @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
    public static class Status {
        private Integer groups;
        private Integer pending;
        private Integer admitted;
        private String fullest;
        private String usage;
        private List<GroupStatus> nodes;

        /** Quota groups in the tree. */
        public Integer getGroups() {
            return groups;
        }

        public void setGroups(Integer groups) {
            this.groups = groups;
        }

        /** Jobs waiting in the tree's groups. */
        public Integer getPending() {
            return pending;
        }

        public void setPending(Integer pending) {
            this.pending = pending;
        }

        /** Admitted, unfinished jobs charged to the tree's groups. */
        public Integer getAdmitted() {
            return admitted;
        }

        public void setAdmitted(Integer admitted) {
            this.admitted = admitted;
        }

        /** The group and resource nearest its max, e.g. {@code root.team-a cpu 75%}; absent when nothing is used. */
        public String getFullest() {
            return fullest;
        }

        public void setFullest(String fullest) {
            this.fullest = fullest;
        }

        /** Per group, e.g. {@code root.team-a cpu 3/4 memory 1Gi/4Gi, 1 pending, 2 admitted; …}. */
        public String getUsage() {
            return usage;
        }

        public void setUsage(String usage) {
            this.usage = usage;
        }

        /** One entry per quota group, in name order. */
        public List<GroupStatus> getNodes() {
            return nodes;
        }

        public void setNodes(List<GroupStatus> nodes) {
            this.nodes = nodes;
        }
    }

    /**
     * One quota group in {@link Status}.
     *
     * @param name     the node's name
     * @param min      declared min (quantities by resource)
     * @param max      declared max; a resource absent is not limited here
     * @param used     used by kube-queue's admitted jobs, descendants included
     * @param pending  jobs waiting in this group
     * @param admitted admitted jobs charged to this group itself
     */
    @RegisterForReflection
    public record GroupStatus(String name, Map<String, String> min, Map<String, String> max, Map<String, String> used,
                              Integer pending, Integer admitted) {
    }

    /**
     * Reads a {@link Spec} from its JSON tree (Jackson reads a tree without recursion), and into nodes only if it is
     * at most {@value #MAX_JSON_DEPTH} levels deep; a deeper one becomes an empty spec marked {@link Spec#tooDeep}.
     */
    public static class BoundedSpecDeserializer extends com.fasterxml.jackson.databind.deser.std.StdDeserializer<Spec> {

        public BoundedSpecDeserializer() {
            super(Spec.class);
        }

        @Override
        public Spec deserialize(com.fasterxml.jackson.core.JsonParser parser,
                                com.fasterxml.jackson.databind.DeserializationContext context)
                throws java.io.IOException {
            JsonNode tree = parser.readValueAsTree();
            Spec spec = new Spec();
            if (io.kubequeue.input.JsonBounds.depth(tree, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) {
                spec.tooDeep = true;
                return spec;
            }
            JsonNode root = tree == null ? null : tree.get("root");
            if (root != null && !root.isNull()) {
                spec.setRoot(context.readTreeAsValue(root, Node.class));
            }
            return spec;
        }
    }
}
