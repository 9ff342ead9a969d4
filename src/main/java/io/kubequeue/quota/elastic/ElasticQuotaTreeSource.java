package io.kubequeue.quota.elastic;

import java.time.Duration;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.jboss.logging.Logger;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.kubequeue.events.EventRecorder;
import io.kubequeue.quota.AdmissionTimeoutAnnotations;
import io.kubequeue.quota.InformedQuotaSource;
import io.kubequeue.resources.Quantities;
import io.kubequeue.scheduler.model.QuotaNode;
import io.kubequeue.scheduler.model.QuotaTree;

/**
 * Quota groups from the ElasticQuotaTree (plugin {@code elasticquota}, the default; docs/behaviour.md §3).
 *
 * <p>The oldest tree in the configured namespace is in force. An invalid tree gets a Warning event and the
 * last valid tree stays in force; with none valid yet, or no tree at all, every job is held.
 *
 * <p>The tree's annotation {@value AdmissionTimeoutAnnotations#TREE} gives quota groups their own admission timeout
 * ({@link AdmissionTimeoutAnnotations}); an entry that does not read is left out with a Warning on the tree, and the
 * tree applies as usual.
 */
public class ElasticQuotaTreeSource extends InformedQuotaSource<ElasticQuotaTree> {

    private static final Logger LOG = Logger.getLogger(ElasticQuotaTreeSource.class);

    private final KubernetesClient client;
    private final String namespace;
    private final EventRecorder events;
    private final AdmissionTimeoutAnnotations timeouts;

    /**
     * @param namespace     where the tree is read ({@code kube-system} in the seed)
     * @param firstListWait how long start-up waits for the first list
     */
    public ElasticQuotaTreeSource(KubernetesClient client, String namespace, EventRecorder events,
                                  Duration firstListWait) {
        super(firstListWait);
        this.client = client;
        this.namespace = namespace;
        this.events = events;
        this.timeouts = new AdmissionTimeoutAnnotations(events);
    }

    @Override
    protected SharedIndexInformer<ElasticQuotaTree> informer() {
        return client.resources(ElasticQuotaTree.class).inNamespace(namespace).runnableInformer(0);
    }

    @Override
    protected String describe() {
        return "ElasticQuotaTree in namespace " + namespace;
    }

    /**
     * A tree by namespace and name.
     *
     * @param namespace its namespace
     * @param name      its name
     */
    public record TreeRef(String namespace, String name) {
    }

    /**
     * What kube-queue made of one tree the last time it read the trees, for the tree's status
     * ({@link QuotaTreeStatusWriter}).
     *
     * @param tree               the tree
     * @param observedGeneration its {@code metadata.generation} read (null if the server sets none)
     * @param accepted           whether that generation is a valid tree; null if it was not read as a tree (a
     *                           younger one: only the oldest of the namespace is)
     * @param rejection          why it is not valid (names the field), when {@code accepted} is false
     * @param inForce            whether this tree's quota groups apply (from this generation or an earlier one)
     * @param generationInForce  the generation whose quota groups apply, when {@code inForce} (null if the server
     *                           sets no generation)
     * @param olderTree          the name of the tree read instead, when {@code accepted} is null
     * @param conditions         the conditions its status holds now (to keep their {@code lastTransitionTime})
     */
    public record TreeReading(TreeRef tree, Long observedGeneration, Boolean accepted, String rejection,
                              boolean inForce, Long generationInForce, String olderTree,
                              List<io.fabric8.kubernetes.api.model.Condition> conditions) {
    }

    private volatile TreeRef inForce;
    /** The uid and generation of the tree whose groups apply: from its last valid reading. */
    private volatile String inForceUid;
    private volatile Long inForceGeneration;
    private volatile List<TreeReading> readings = List.of();

    /** One reading per tree of the namespace, oldest first, as of the last time the trees were read. */
    public List<TreeReading> readings() {
        return readings;
    }

    /** The tree whose quota groups are in force: the oldest valid one; empty while none is. */
    public Optional<TreeRef> inForce() {
        return Optional.ofNullable(inForce);
    }

    @Override
    protected QuotaTree build(List<ElasticQuotaTree> trees, QuotaTree current) {
        Optional<ElasticQuotaTree> inForce = trees.stream()
                .min(Comparator.comparing((ElasticQuotaTree t) -> t.getMetadata().getCreationTimestamp(),
                        Comparator.nullsLast(Comparator.naturalOrder()))
                        .thenComparing(t -> t.getMetadata().getName()));
        QuotaTree next;
        String rejection = null;
        if (inForce.isEmpty()) {
            LOG.warnf("no ElasticQuotaTree in namespace %s: every job is held until one is created", namespace);
            next = QuotaTree.EMPTY;
            this.inForce = null;
            this.inForceUid = null;
            this.inForceGeneration = null;
        } else {
            ElasticQuotaTree oldest = inForce.get();
            try {
                next = withAdmissionTimeouts(toQuotaTree(oldest), oldest);
                this.inForce = new TreeRef(namespace, oldest.getMetadata().getName());
                this.inForceUid = oldest.getMetadata().getUid();
                this.inForceGeneration = oldest.getMetadata().getGeneration();
            } catch (RuntimeException e) { // IllegalArgumentException names the field; anything else is the tree's too
                boolean noneYet = current == null || current.equals(QuotaTree.EMPTY);
                rejection = (e instanceof IllegalArgumentException
                        ? e.getMessage() : "cannot be read (" + e.getClass().getSimpleName() + ")")
                        + (noneYet ? "; no valid tree yet: every job is held" : "; the last valid tree stays in force");
                events.warning(oldest, "InvalidQuotaTree", rejection);
                next = noneYet ? QuotaTree.EMPTY : current;
            }
        }
        this.readings = readings(trees, inForce.orElse(null), rejection);
        return next;
    }

    private List<TreeReading> readings(List<ElasticQuotaTree> trees, ElasticQuotaTree oldest, String rejection) {
        if (oldest == null) {
            return List.of();
        }
        List<TreeReading> out = new ArrayList<>();
        TreeRef groupsFrom = this.inForce;
        for (ElasticQuotaTree tree : trees) {
            io.fabric8.kubernetes.api.model.ObjectMeta meta = tree.getMetadata();
            boolean read = tree == oldest;
            boolean groupsAreItsOwn = meta.getUid() != null ? meta.getUid().equals(inForceUid)
                    : groupsFrom != null && groupsFrom.name().equals(meta.getName());
            Long generationInForce = groupsAreItsOwn ? inForceGeneration : null;
            out.add(new TreeReading(new TreeRef(namespace, meta.getName()), meta.getGeneration(),
                    read ? rejection == null : null, read ? rejection : null, groupsAreItsOwn, generationInForce,
                    read ? null : oldest.getMetadata().getName(),
                    tree.getStatus() == null || tree.getStatus().getConditions() == null ? List.of()
                            : List.copyOf(tree.getStatus().getConditions())));
        }
        out.sort(Comparator.comparing((TreeReading r) -> !r.tree().name().equals(oldest.getMetadata().getName()))
                .thenComparing(r -> r.tree().name()));
        return List.copyOf(out);
    }

    /** The groups, each with the admission timeout the tree's annotation sets for it, if any. */
    private QuotaTree withAdmissionTimeouts(QuotaTree groups, ElasticQuotaTree tree) {
        Map<String, Duration> own = timeouts.ofTree(tree, groups.nodes().stream().map(QuotaNode::name).toList());
        if (own.isEmpty()) {
            return groups;
        }
        return new QuotaTree(groups.nodes().stream()
                .map(node -> own.containsKey(node.name()) ? node.withAdmissionTimeout(own.get(node.name())) : node)
                .toList());
    }

    /**
     * Flattens a tree into quota groups.
     *
     * @throws IllegalArgumentException for a missing root or node name, a bad quantity, min above max, a
     *                                  duplicate node name, a namespace in two nodes, or more than
     *                                  {@value #MAX_TREE_LEVELS} levels
     */
    public static QuotaTree toQuotaTree(ElasticQuotaTree tree) {
        if (tree.getSpec() != null && tree.getSpec().tooDeep()) {
            throw new IllegalArgumentException("spec.root is nested more than " + ElasticQuotaTree.MAX_JSON_DEPTH
                    + " levels deep (at most " + MAX_TREE_LEVELS + " levels of quota groups are read)");
        }
        if (tree.getSpec() == null || tree.getSpec().getRoot() == null) {
            throw new IllegalArgumentException("spec.root is missing");
        }
        List<QuotaNode> nodes = new ArrayList<>();
        flatten(tree.getSpec().getRoot(), null, "spec.root", nodes);
        return new QuotaTree(nodes);
    }

    /**
     * The most levels of a tree below its root, root included: far above any real tree, and a bound on the recursion
     * of {@link #flatten} (the CRD's schema stops at {@value ElasticQuotaTree#SCHEMA_DEPTH} levels and keeps deeper
     * children as written).
     */
    public static final int MAX_TREE_LEVELS = ElasticQuotaTree.MAX_LEVELS;

    private static void flatten(ElasticQuotaTree.Node node, String parent, String path, List<QuotaNode> out) {
        flatten(node, parent, path, out, 1);
    }

    private static void flatten(ElasticQuotaTree.Node node, String parent, String path, List<QuotaNode> out,
                                int level) {
        if (level > MAX_TREE_LEVELS) {
            throw new IllegalArgumentException("the tree has more than " + MAX_TREE_LEVELS + " levels");
        }
        if (node == null) {
            throw new IllegalArgumentException(path + " is empty");
        }
        if (node.getName() == null || node.getName().isBlank()) {
            throw new IllegalArgumentException(path + ".name is missing");
        }
        checkMinNotAboveMax(node, path);
        QuotaNode flat;
        try {
            flat = new QuotaNode(node.getName(), parent, node.getNamespaces(),
                    Quantities.toLimitResources(node.getMin()), Quantities.toLimitResources(node.getMax()));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(path + " (" + node.getName() + "): " + e.getMessage(), e);
        }
        out.add(flat);
        List<ElasticQuotaTree.Node> children = node.getChildren() == null ? List.of() : node.getChildren();
        for (int i = 0; i < children.size(); i++) {
            flatten(children.get(i), node.getName(), path + ".children[" + i + "]", out, level + 1);
        }
    }

    private static void checkMinNotAboveMax(ElasticQuotaTree.Node node, String path) {
        if (node.getMin() == null || node.getMax() == null) {
            return;
        }
        for (Map.Entry<String, Quantity> min : node.getMin().entrySet()) {
            Quantity max = node.getMax().get(min.getKey());
            if (max == null || min.getValue() == null) {
                continue;
            }
            BigDecimal minAmount;
            BigDecimal maxAmount;
            try {
                minAmount = Quantities.amount(min.getValue()); // bounded: never fabric8's arithmetic on 1e999999999
                maxAmount = Quantities.amount(max);
            } catch (RuntimeException e) {
                continue; // reported as a bad quantity by the conversion
            }
            if (minAmount.compareTo(maxAmount) > 0) {
                throw new IllegalArgumentException(path + " (" + node.getName() + "): min " + min.getKey() + " "
                        + min.getValue() + " is above max " + max);
            }
        }
    }
}
