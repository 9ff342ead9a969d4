package io.kubequeue.scheduler.model;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * An immutable set of quota groups with parent links: one ElasticQuotaTree, or the flat set of
 * per-namespace groups of the ResourceQuota plugin.
 *
 * <p>A job's group is the node named by its quota-name label, else the node that lists its namespace
 * (docs/behaviour.md §3).
 */
public final class QuotaTree {

    /** A tree with no groups: every job is held until a real tree arrives. */
    public static final QuotaTree EMPTY = new QuotaTree(List.of());

    private final Map<String, QuotaNode> byName = new LinkedHashMap<>();
    private final Map<String, QuotaNode> byNamespace = new LinkedHashMap<>();
    private final Map<String, List<QuotaNode>> paths = new LinkedHashMap<>();
    private final boolean everyNamespaceIsAGroup;

    /**
     * Groups for the ResourceQuota plugin: one per namespace. A namespace with no node of its own is a group
     * without limits (a namespace with no ResourceQuota is unlimited, docs/behaviour.md §3), and the quota-name
     * label is ignored.
     *
     * @param nodes the namespaces that have limits, each node named after its namespace
     */
    public static QuotaTree perNamespace(Collection<QuotaNode> nodes) {
        return new QuotaTree(nodes, true);
    }

    /**
     * Groups of an ElasticQuotaTree: a job whose namespace no node lists has no group.
     *
     * @param nodes every node; parents are named, not nested
     * @throws IllegalArgumentException on a duplicate node name, a namespace listed by two nodes, a missing
     *                                  parent or a cycle
     */
    public QuotaTree(Collection<QuotaNode> nodes) {
        this(nodes, false);
    }

    /**
     * @param nodes every node; parents are named, not nested
     * @throws IllegalArgumentException on a duplicate node name, a namespace listed by two nodes, a missing
     *                                  parent or a cycle
     */
    private QuotaTree(Collection<QuotaNode> nodes, boolean everyNamespaceIsAGroup) {
        this.everyNamespaceIsAGroup = everyNamespaceIsAGroup;
        for (QuotaNode node : nodes) {
            if (byName.putIfAbsent(node.name(), node) != null) {
                throw new IllegalArgumentException("duplicate quota group name " + node.name());
            }
            for (String namespace : node.namespaces()) {
                QuotaNode other = byNamespace.putIfAbsent(namespace, node);
                if (other != null) {
                    throw new IllegalArgumentException("namespace " + namespace + " is listed by both "
                            + other.name() + " and " + node.name());
                }
            }
        }
        for (QuotaNode node : nodes) {
            int depth = 0;
            for (QuotaNode n = node; n.parentName() != null; n = byName.get(n.parentName())) {
                if (!byName.containsKey(n.parentName())) {
                    throw new IllegalArgumentException("quota group " + n.name() + " names missing parent "
                            + n.parentName());
                }
                if (++depth > byName.size()) {
                    throw new IllegalArgumentException("quota groups form a cycle at " + node.name());
                }
            }
        }
        // every fit check walks a path: compute each once, not per decision
        for (QuotaNode node : nodes) {
            List<QuotaNode> path = new ArrayList<>();
            for (QuotaNode n = node; n != null; n = n.parentName() == null ? null : byName.get(n.parentName())) {
                path.add(n);
            }
            paths.put(node.name(), List.copyOf(path));
        }
    }

    /**
     * The group of a job: the node that lists its namespace, or the node its quota-name label names if that node is the
     * namespace's own or lies below it. A label that names any other node (root, another team's group, a node outside
     * the namespace's subtree) gives no group: a tenant cannot take another team's quota, or its parent's, by a label
     * (issue 25; docs/behaviour.md §3). {@link #labelRefusal} says why.
     */
    public Optional<QuotaNode> groupFor(String namespace, String quotaName) {
        if (everyNamespaceIsAGroup) {
            return Optional.of(byNamespace.getOrDefault(namespace, unlimited(namespace)));
        }
        if (quotaName != null && !quotaName.isEmpty()) {
            QuotaNode named = byName.get(quotaName);
            return named != null && labelAllowed(namespace, named) ? Optional.of(named) : Optional.empty();
        }
        return Optional.ofNullable(byNamespace.get(namespace));
    }

    /**
     * Whether a declared group lists this namespace: an ElasticQuotaTree node's {@code namespaces}, or under the
     * ResourceQuota plugin a namespace with a ResourceQuota (not the unlimited group of one without).
     */
    public boolean lists(String namespace) {
        return byNamespace.containsKey(namespace);
    }

    private boolean labelAllowed(String namespace, QuotaNode named) {
        QuotaNode home = byNamespace.get(namespace);
        return home != null && pathToRoot(named.name()).stream().anyMatch(n -> n.name().equals(home.name()));
    }

    /**
     * Why a job of {@code namespace} labelled with {@code quotaName} has no group, if the label is the cause: the node
     * does not exist, or it is not the namespace's own node nor below it; null if the label names an allowed node
     * (or none).
     */
    public String labelRefusal(String namespace, String quotaName) {
        if (everyNamespaceIsAGroup || quotaName == null || quotaName.isEmpty()) {
            return null;
        }
        QuotaNode named = byName.get(quotaName);
        if (named == null) {
            return "quota group " + quotaName + " (label quota.scheduling.alibabacloud.com/name) does not exist";
        }
        if (labelAllowed(namespace, named)) {
            return null;
        }
        QuotaNode home = byNamespace.get(namespace);
        return "quota group " + quotaName + " (label quota.scheduling.alibabacloud.com/name) is not open to namespace "
                + namespace + ": the label may name only " + (home == null
                ? "a group below the one that lists the namespace, and no group lists " + namespace
                : "quota group " + home.name() + ", which lists the namespace, or a group below it");
    }

    /**
     * The group of that name. Under the ResourceQuota plugin ({@link #perNamespace}) every name is a group:
     * a namespace without ResourceQuota gets an unlimited one.
     */
    public Optional<QuotaNode> node(String name) {
        QuotaNode node = byName.get(name);
        if (node == null && everyNamespaceIsAGroup && name != null) {
            node = unlimited(name);
        }
        return Optional.ofNullable(node);
    }

    private static QuotaNode unlimited(String namespace) {
        return new QuotaNode(namespace, null, List.of(namespace), null, null);
    }

    /** The node and all its ancestors, leaf first, root last; empty if the name is unknown. Not modifiable. */
    public List<QuotaNode> pathToRoot(String name) {
        List<QuotaNode> path = name == null ? null : paths.get(name);
        if (path != null) {
            return path;
        }
        return node(name).map(List::of).orElse(List.of());
    }

    /** The root of the tree the group belongs to (the group itself at a root); null if the name is unknown. */
    public String rootOf(String name) {
        List<QuotaNode> path = pathToRoot(name);
        return path.isEmpty() ? null : path.get(path.size() - 1).name();
    }

    /**
     * Whether a job's group is always its namespace ({@link #perNamespace}, the ResourceQuota plugin): then the
     * group an admission record names (written, say, under the ElasticQuotaTree plugin) is not where it is charged.
     */
    public boolean groupsAreNamespaces() {
        return everyNamespaceIsAGroup;
    }

    /** The groups declared (not the implicit unlimited namespaces of {@link #perNamespace}). */
    public Collection<QuotaNode> nodes() {
        return Collections.unmodifiableCollection(byName.values());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof QuotaTree t && byName.equals(t.byName) && everyNamespaceIsAGroup == t.everyNamespaceIsAGroup;
    }

    @Override
    public int hashCode() {
        return byName.hashCode();
    }
}
