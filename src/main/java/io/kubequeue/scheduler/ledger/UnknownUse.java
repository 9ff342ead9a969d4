package io.kubequeue.scheduler.ledger;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

import io.kubequeue.scheduler.model.Explanation;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.QuotaNode;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.Resources;

/**
 * The admitted jobs whose request cannot be read (charged as unknown, see {@code Scheduler.observeUnreadable}), and
 * what they count for at each node of the tree: the only owner of that state. Only {@link QuotaLedger} calls it,
 * under the scheduler's lock.
 */
final class UnknownUse {

    /**
     * What the jobs of unknown use below a node count for there, for one fit check: either the reason they hold the
     * node for this request, or how much more than the node's known usage is counted, per resource.
     *
     * @param held    why the node admits nothing of this request now; null if it does not hold it
     * @param extra   per resource: what is counted above the usage at the node (millicores, bytes, counts)
     * @param counted per resource, which groups are counted so, for the reason text
     */
    record Count(Explanation held, Resources extra, Map<String, Explanation> counted) {
        static final Count NONE = new Count(null, Resources.NONE, Map.of());
    }

    /** Per node: the jobs of unknown use charged there or below. */
    private final Map<String, TreeSet<JobKey>> byNode = new HashMap<>();
    /** The jobs of unknown use, by key: their charged group and preemptibility. */
    private final Map<JobKey, Chargeable> jobs = new HashMap<>();

    /** This one made the same as {@code original}, its jobs the copies {@code entries} maps them to. */
    void copyFrom(UnknownUse original, Map<? extends Chargeable, ? extends Chargeable> entries) {
        original.byNode.forEach((node, keys) -> byNode.put(node, new TreeSet<>(keys)));
        original.jobs.forEach((key, entry) -> jobs.put(key, entries.get(entry)));
    }

    /** A job charged as unknown at its {@code chargedGroup}. */
    void add(Chargeable entry, QuotaTree tree) {
        for (QuotaNode node : tree.pathToRoot(entry.chargedGroup())) {
            byNode.computeIfAbsent(node.name(), n -> new TreeSet<>()).add(entry.job().key());
        }
        jobs.put(entry.job().key(), entry);
    }

    /** That job's charge taken off. */
    void remove(Chargeable entry, QuotaTree tree) {
        for (QuotaNode node : tree.pathToRoot(entry.chargedGroup())) {
            byNode.computeIfPresent(node.name(), (n, keys) -> {
                keys.remove(entry.job().key());
                return keys.isEmpty() ? null : keys;
            });
        }
        jobs.remove(entry.job().key());
    }

    void clear() {
        byNode.clear();
        jobs.clear();
    }

    /**
     * What the admitted jobs of unknown use charged at or below {@code node} count for there, for a request (issue 25;
     * docs/behaviour.md §2). Such a job runs, but kube-queue cannot read what it uses:
     * <ul>
     *   <li>its own group admits nothing more while it runs, if the group declares a {@code max} (or, for a
     *       non-preemptible request, a {@code min});</li>
     *   <li>above its group, each subtree that holds such a job counts, in a resource, as much as it could use: its
     *       own group at its {@code max} of the resource, and every group above at the sum of its children's worst
     *       cases capped by its own {@code max} (never below its known usage). So an ancestor admits into the rest of
     *       its room, and the teams elsewhere under it go on;</li>
     *   <li>a resource that no group between the job and the ancestor limits is unbounded there: the ancestor admits
     *       nothing that asks for it.</li>
     * </ul>
     * The {@link Resources#MAX_JOBS} count is known (one job each) and is not affected. Costs O(jobs of unknown use
     * below the node × depth), and nothing when there are none.
     *
     * @param guaranteed whether this is the min check of a non-preemptible request: then only non-preemptible jobs of
     *                   unknown use count, against the guaranteed usage of their subtrees
     * @param tree       the quota groups in force
     * @param known      per node, the usage known there as the check counts it (the max check: the ledger's counted
     *                   usage; the min check: non-preemptible usage)
     * @return {@link Count#NONE} when no job of unknown use lies below the node
     */
    Count at(QuotaNode node, Resources request, boolean guaranteed, QuotaTree tree, Function<String, Resources> known) {
        if (!byNode.containsKey(node.name())) {
            return Count.NONE;
        }
        Resources limits = guaranteed ? node.min() : node.max();
        // the nodes strictly below `node` on the paths of its jobs of unknown use, and one such job under each
        Map<String, Chargeable> witness = new HashMap<>();
        Map<String, List<String>> children = new HashMap<>();
        Set<String> ownGroups = new HashSet<>();
        for (JobKey key : byNode.get(node.name())) {
            Chargeable job = jobs.get(key);
            if (job == null || guaranteed && job.job().preemptible()) {
                continue;
            }
            if (job.chargedGroup().equals(node.name())) {
                if (!limits.asMap().isEmpty()) { // a limit of 0 is a limit too
                    return new Count(Explanation.of("quota group " + node.name() + " admits nothing now: "
                            + "admitted job ").then(key, job.chargedGroup()).then(" runs with a request kube-queue"
                            + " cannot read, so the group's use is unknown"), Resources.NONE, Map.of());
                }
                continue;
            }
            ownGroups.add(job.chargedGroup());
            String below = null;
            for (QuotaNode n : tree.pathToRoot(job.chargedGroup())) {
                witness.putIfAbsent(n.name(), job);
                if (below != null && !children.computeIfAbsent(n.name(), c -> new ArrayList<>()).contains(below)) {
                    children.get(n.name()).add(below);
                }
                if (n.name().equals(node.name())) {
                    break;
                }
                below = n.name();
            }
        }
        if (ownGroups.isEmpty()) {
            return Count.NONE;
        }
        // deepest first, so that each node's children are worked out before it
        List<String> bottomUp = new ArrayList<>(witness.keySet());
        bottomUp.remove(node.name());
        bottomUp.sort(Comparator.comparingInt((String n) -> tree.pathToRoot(n).size()).reversed());
        Map<String, Long> extra = new HashMap<>();
        Map<String, Explanation> counted = new HashMap<>();
        for (Map.Entry<String, Long> r : request.asMap().entrySet()) {
            String k = r.getKey();
            if (k.equals(Resources.MAX_JOBS) || !limits.has(k) || r.getValue() == 0) {
                continue;
            }
            Map<String, Long> unread = new HashMap<>(); // per node: what its subtree may use beyond its known usage
            for (String name : bottomUp) {
                long more = ownGroups.contains(name) ? Long.MAX_VALUE : 0;
                for (String child : children.getOrDefault(name, List.of())) {
                    long c = unread.get(child);
                    more = more > Long.MAX_VALUE - c ? Long.MAX_VALUE : more + c;
                }
                QuotaNode n = tree.node(name).orElseThrow();
                long used = known.apply(name).get(k);
                if (n.max().has(k)) {
                    more = Math.min(more, Math.max(0, n.max().get(k) - used)); // its max bounds its subtree
                }
                unread.put(name, more);
            }
            long more = 0;
            Explanation which = Explanation.empty();
            for (String child : children.getOrDefault(node.name(), List.of())) {
                long c = unread.get(child);
                Chargeable job = witness.get(child);
                if (c == Long.MAX_VALUE) {
                    return new Count(Explanation.of(k + ": quota group " + node.name() + " admits no more " + k
                            + " now: admitted job ").then(job.job().key(), job.chargedGroup()).then(" of quota group "
                            + job.chargedGroup() + " runs with a request kube-queue cannot read, and no group between"
                            + " them limits " + k), Resources.NONE, Map.of());
                }
                more = more > Long.MAX_VALUE - c ? Long.MAX_VALUE : more + c;
                long worst = known.apply(child).get(k) + c; // ≤ that group's max: no overflow
                which = (which.isEmpty() ? which : which.then("; ")).then("quota group " + child + " counted at "
                        + Resources.format(k, worst) + ", as much as its limits let it use: admitted job ")
                        .then(job.job().key(), job.chargedGroup()).then(" runs with a request kube-queue cannot read");
            }
            if (more > 0) {
                extra.put(k, more);
            }
            if (!which.isEmpty()) {
                counted.put(k, which);
            }
        }
        return extra.isEmpty() && counted.isEmpty() ? Count.NONE
                : new Count(null, Resources.of(extra), counted);
    }
}
