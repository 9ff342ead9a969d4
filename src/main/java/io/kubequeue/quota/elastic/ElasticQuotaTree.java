package io.kubequeue.quota.elastic;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.databind.JsonNode;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.crd.generator.annotation.SchemaSwap;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.kubernetes.api.model.Condition;
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
// kubectl shows the columns in this order (CrdPostProcessor keeps it; the generator sorts them by path): what a
// reader asks first, AGE last, the wide column before it so that AGE stays last with -o wide too
@AdditionalPrinterColumn(name = "Fullest", jsonPath = ".status.fullest", type = AdditionalPrinterColumn.Type.STRING,
        getDescription = "the group and resource nearest its max, in percent of max")
@AdditionalPrinterColumn(name = "Pending", jsonPath = ".status.pending", type = AdditionalPrinterColumn.Type.INTEGER,
        getDescription = "jobs waiting in the tree's groups")
@AdditionalPrinterColumn(name = "Admitted", jsonPath = ".status.admitted", type = AdditionalPrinterColumn.Type.INTEGER,
        getDescription = "admitted, unfinished jobs charged to the tree's groups")
@AdditionalPrinterColumn(name = "Groups", jsonPath = ".status.groups", type = AdditionalPrinterColumn.Type.INTEGER,
        getDescription = "quota groups in the tree in force")
@AdditionalPrinterColumn(name = "Accepted", jsonPath = ".status.conditions[?(@.type==\"Accepted\")].status",
        type = AdditionalPrinterColumn.Type.STRING,
        getDescription = "whether the spec last read is valid; False keeps the generation in force before it")
@AdditionalPrinterColumn(name = "Usage", jsonPath = ".status.usage", type = AdditionalPrinterColumn.Type.STRING,
        priority = 1, getDescription = "per group: used/max per resource, pending and admitted jobs")
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = AdditionalPrinterColumn.Type.DATE)
public class ElasticQuotaTree extends CustomResource<ElasticQuotaTree.Spec, ElasticQuotaTree.Status>
        implements Namespaced {

    /**
     * What {@code kubectl explain elasticquotatree} says of the kind (the generator writes no description for a
     * resource's own schema; {@link CrdPostProcessor} adds this one).
     */
    public static final String DESCRIPTION = "A tree of quota groups, read by kube-queue from its namespace (kube-system"
            + " by default; the oldest tree there is in force). Each node is a quota group: the namespaces whose jobs"
            + " it queues, the resources it is guaranteed (min) and the most it may use with its descendants (max)."
            + " kube-queue admits a job, removing its suspend mark, only when its group and every parent have room for"
            + " the whole request. An invalid edit is refused in status.conditions and the generation before it stays"
            + " in force (status.generationInForce).";
    /** The description of {@code spec}. */
    public static final String SPEC_DESCRIPTION = "The quota groups, written by the cluster's administrators.";
    /** The description of {@code status}. */
    public static final String STATUS_DESCRIPTION = "Written by kube-queue's leader every few seconds: whether the"
            + " spec was accepted, which generation is in force, and per quota group what kube-queue's admitted jobs"
            + " use against min and max.";

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
        @JsonPropertyDescription("The root quota group. Its max caps the whole tree; its children divide it.")
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
        @JsonPropertyDescription("The quota group's name, unique in the tree (the seed writes it as a path, e.g. root.team-a). Events, metrics and the read API name groups by it.")
        @Required
        @Size(min = 1)
        private String name;
        @JsonPropertyDescription("The namespaces whose jobs are queued in this group; a namespace may be in one group only. A job of a namespace in no group is held.")
        private List<String> namespaces;
        @JsonPropertyDescription("The resources guaranteed to this group (quantities by resource name, e.g. cpu: 4, memory: 8Gi, nvidia.com/gpu: 2). Min may be borrowed by others while unused, and reclaimed.")
        private Map<String, Quantity> min;
        @JsonPropertyDescription("The most this group and its descendants may use together, per resource; a resource not named here is not limited by this group. Each min must not be above its max.")
        private Map<String, Quantity> max;
        @JsonPropertyDescription("Child quota groups; their usage counts against this group's max too.")
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
        @JsonPropertyDescription("Quota groups in the tree in force.")
        private Integer groups;
        @JsonPropertyDescription("Jobs waiting in the tree's groups.")
        private Integer pending;
        @JsonPropertyDescription("Admitted, unfinished jobs charged to the tree's groups.")
        private Integer admitted;
        @JsonPropertyDescription("The group and resource nearest its max, in percent of max (e.g. root.team-a cpu 75%).")
        private String fullest;
        @JsonPropertyDescription("Per group: used/max per resource, then pending and admitted jobs.")
        private String usage;
        @JsonPropertyDescription("One entry per quota group, in name order: its min, max, what kube-queue's admitted jobs use (descendants included), pending and admitted jobs.")
        private List<GroupStatus> nodes;
        @JsonPropertyDescription("The metadata.generation of the spec kube-queue read last, valid or not.")
        private Long observedGeneration;
        @JsonPropertyDescription("The metadata.generation whose quota groups are in force; below observedGeneration"
                + " after a rejected edit (see the Accepted condition). Absent while no generation of this tree is in"
                + " force.")
        private Long generationInForce;
        @JsonPropertyDescription("Accepted: whether the spec last read is a valid tree (reason InvalidSpec with the"
                + " field at fault; Unknown with NotTheOldest: only the oldest tree of the namespace is read). InForce: whether"
                + " this tree's quota groups apply, and which generation.")
        private List<Condition> conditions;

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

        /** The {@code metadata.generation} kube-queue read last, valid or not. */
        public Long getObservedGeneration() {
            return observedGeneration;
        }

        public void setObservedGeneration(Long observedGeneration) {
            this.observedGeneration = observedGeneration;
        }

        /** The {@code metadata.generation} whose quota groups are in force; null while none of this tree's is. */
        public Long getGenerationInForce() {
            return generationInForce;
        }

        public void setGenerationInForce(Long generationInForce) {
            this.generationInForce = generationInForce;
        }

        /** {@value #ACCEPTED} and {@value #IN_FORCE}, as {@code metav1.Condition}s. */
        public List<Condition> getConditions() {
            return conditions;
        }

        public void setConditions(List<Condition> conditions) {
            this.conditions = conditions;
        }

        /** Condition type: whether the spec last read ({@code observedGeneration}) is a valid tree. */
        public static final String ACCEPTED = "Accepted";
        /** Condition type: whether this tree's quota groups apply ({@code generationInForce}). */
        public static final String IN_FORCE = "InForce";
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
    public record GroupStatus(
            @JsonPropertyDescription("The quota group's name.") String name,
            @JsonPropertyDescription("Its declared min, as quantities by resource.") Map<String, String> min,
            @JsonPropertyDescription("Its declared max; a resource absent is not limited here.") Map<String, String> max,
            @JsonPropertyDescription("What kube-queue's admitted jobs use, descendants included.") Map<String, String> used,
            @JsonPropertyDescription("Jobs waiting in this group.") Integer pending,
            @JsonPropertyDescription("Admitted, unfinished jobs charged to this group itself.") Integer admitted) {
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
