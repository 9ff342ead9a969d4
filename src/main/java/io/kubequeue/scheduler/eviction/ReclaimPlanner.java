package io.kubequeue.scheduler.eviction;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.kubequeue.scheduler.ledger.QuotaLedger;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.scheduler.model.QuotaNode;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.scheduler.queue.JobEntry;
import io.kubequeue.scheduler.queue.QueueManager;

/**
 * Chooses the victims of a reclaim (docs/policies.md, "Reclaim"): the admitted jobs of groups that borrow above their
 * own min whose suspension makes room for a job that fits its own group's min but not the free room.
 *
 * <p><b>Who may reclaim.</b> A job of group A that does not fit the free room, whose request keeps A's usage (and
 * reserved room) + request ≤ A's min for every resource A's min declares, and the same at every ancestor that
 * declares a min above 0 once the victims are suspended (so the victims must also bring such an ancestor back
 * within its min where it is above it; a min of 0 above A, as the seed's root declares, guarantees nothing and is
 * not held to); every resource it is short of must be one some node on its path declares a min above 0 for (it is
 * guaranteed some of it). A non-preemptible job must also fit the min it is always held to (victims are preemptible: suspending them
 * frees none of that).
 *
 * <p><b>Who may be a victim.</b> An admitted job, admitted by kube-queue (not started outside it, request known, its
 * admission settled), preemptible, that suspending stops ({@link JobObservation#stoppable()}), not being evicted,
 * victim fewer than {@code maxPerHour} times in the last hour, no eviction of it refused under this admission, whose group is neither on A's path nor below A (those
 * share A's guarantee). Suspending it must free room where A is short: at a node on both paths.
 *
 * <p><b>Never below a min.</b> On the victim's side of the tree (its group and its ancestors below the first node it
 * shares with A), usage minus every victim chosen there stays ≥ min, for each resource the reclaim frees: those A's job
 * is short of somewhere ({@code needs}). A min in another resource (memory, say, where the victim's group is under its
 * min while it borrows cpu) does not shield the victim: nobody takes that resource from its group. This is Kueue's
 * rule (docs "Preemption": a ClusterQueue's workloads are reclaim candidates when it uses more than its nominal quota
 * of at least one resource the preemptor needs), kept stricter in one way: the group must still hold its min of each
 * freed resource after the victims go, not only be over it before.
 *
 * <p><b>Order.</b> Lowest priority first, then the most recently admitted, then by key; victims are added in that
 * order until A's job fits, then any victim the others make unneeded is dropped (latest added first). No victims
 * at all if they cannot make it fit: nothing is suspended for nothing.
 */
public final class ReclaimPlanner {

    /** Victims first: lowest priority, then most recently admitted (records sort by time), then key. */
    private static final Comparator<JobEntry> VICTIM_ORDER = Comparator
            .comparingInt((JobEntry e) -> e.priority())
            .thenComparing((JobEntry e) -> e.record().admittedAt(), Comparator.reverseOrder())
            .thenComparing(e -> e.job().key());

    private final QueueManager queues;
    private final QuotaLedger ledger;
    private final int maxPerHour;

    ReclaimPlanner(QueueManager queues, QuotaLedger ledger, int maxPerHour) {
        this.queues = queues;
        this.ledger = ledger;
        this.maxPerHour = maxPerHour;
    }

    /**
     * The jobs that may be victims in one cycle, in victim order, and the room the evictions in flight free at each
     * node: read from every job once per cycle (on its first plan), not once per plan.
     */
    public static final class Pool {
        private final List<JobEntry> candidates = new ArrayList<>();
        private final Map<String, Resources> leaving = new HashMap<>();
        private final QuotaTree tree;

        private Pool(QuotaTree tree) {
            this.tree = tree;
        }

        /** A job chosen as a victim in this cycle leaves its groups too. */
        void leaves(JobEntry victim) {
            addAlongPath(leaving, tree, victim);
        }
    }

    /** Adds what a charged job frees, once it is seen suspended, at its group and every ancestor. */
    static void addAlongPath(Map<String, Resources> leaving, QuotaTree tree, JobEntry job) {
        for (QuotaNode m : tree.pathToRoot(job.chargedGroup())) {
            leaving.merge(m.name(), job.charged(), Resources::plus);
        }
    }

    /** The pool for a cycle at {@code now}. O(jobs × path). */
    Pool pool(Instant now) {
        Pool pool = new Pool(ledger.tree());
        for (JobEntry e : queues.all()) {
            if (mayBeVictim(e, now)) {
                pool.candidates.add(e);
            } else if (e.state() == JobState.ADMITTED && e.evicting() != null && e.chargedGroup() != null) {
                pool.leaves(e);
            }
        }
        pool.candidates.sort(VICTIM_ORDER);
        return pool;
    }

    /**
     * A reclaim's victims, in the order chosen, and the resources suspending them is for (those the preemptor is
     * short of, sorted).
     */
    record Plan(List<JobEntry> victims, java.util.SortedSet<String> resources) {
    }

    /**
     * The victims that make {@code job} fit its group, in the order chosen; null if it may not reclaim, or no such
     * victims exist. O(candidates × path); the caller bounds how many plans a cycle makes.
     *
     * @param pool this cycle's candidates ({@link #pool}); the caller tells it of the victims chosen
     */
    Plan plan(String group, JobEntry job, Pool pool) {
        List<QuotaNode> path = ledger.tree().pathToRoot(group);
        Resources request = job.effectiveRequest();
        Map<String, Map<String, Long>> needs = needs(group, path, request, pool.leaving);
        if (needs == null || needs.isEmpty() || !entitled(group, path, request, needs, !job.job().preemptible())) {
            return null;
        }
        addMinNeeds(group, path, request, needs, pool.leaving);
        java.util.SortedSet<String> freedResources = resourcesIn(needs);
        Set<String> onPath = new HashSet<>();
        path.forEach(n -> onPath.add(n.name()));
        // jobs being evicted already leave their groups too: a victim's group stays at its min after all of them
        Map<String, Resources> taken = new HashMap<>(pool.leaving);
        List<JobEntry> candidates = new ArrayList<>();
        for (JobEntry e : pool.candidates) {
            if (e.evicting() == null && e.state() == JobState.ADMITTED && !onPath.contains(e.chargedGroup())
                    && !below(e.chargedGroup(), group)) {
                candidates.add(e);
            }
        }
        List<JobEntry> victims = new ArrayList<>();
        for (JobEntry e : candidates) {
            if (satisfied(needs, victims)) {
                break;
            }
            List<QuotaNode> victimSide = victimSide(e.chargedGroup(), onPath);
            if (helps(e, needs, victims) && keepsMin(e, victimSide, taken, freedResources)) {
                victims.add(e);
                for (QuotaNode m : victimSide) {
                    taken.merge(m.name(), e.charged(), Resources::plus);
                }
            }
        }
        if (!satisfied(needs, victims)) {
            return null;
        }
        for (int i = victims.size() - 1; i >= 0; i--) {
            List<JobEntry> without = new ArrayList<>(victims);
            without.remove(i);
            if (satisfied(needs, without)) {
                victims = without; // the others free enough: this one keeps running
            }
        }
        return new Plan(victims, freedResources);
    }

    /**
     * Per node on the path and resource, how much must be freed for the request to fit max; null if something other
     * than usage stops it (a held group; a job of unknown use in its own group, or in a resource nothing below
     * the node bounds).
     */
    private Map<String, Map<String, Long>> needs(String group, List<QuotaNode> path, Resources request,
                                                 Map<String, Resources> leaving) {
        Map<String, Map<String, Long>> needs = new LinkedHashMap<>();
        for (QuotaNode node : path) {
            Resources unknown = ledger.unknownExtra(node, request);
            if (node.heldBecause() != null || unknown == null) {
                return null;
            }
            // the jobs being evicted will leave: their room is already promised to the reservations counted here;
            // groups of unknown use below count at their max (UnknownUse)
            Resources used = ledger.usedOrReserved(node.name()).minus(leaving.getOrDefault(node.name(), Resources.NONE))
                    .plus(unknown);
            if (node.name().equals(group)) {
                used = used.plus(ledger.externalUsage(group));
            }
            for (Map.Entry<String, Long> r : request.asMap().entrySet()) {
                String k = r.getKey();
                if (node.max().has(k)) {
                    long free = node.max().get(k) - used.get(k); // both ≥ 0: cannot overflow
                    if (r.getValue() > free) {
                        needs.computeIfAbsent(node.name(), n -> new HashMap<>()).put(k, r.getValue() - free);
                    }
                }
            }
        }
        return needs;
    }

    /**
     * Whether the request fits the group's own min in each resource it is short of (what the reclaim frees; in the
     * others it takes free room, as any admission may: Kueue judges a preemptor on the resources that need
     * preemption), a non-preemptible one every min on the path in everything it asks, and each resource short is
     * one the path guarantees.
     */
    private boolean entitled(String group, List<QuotaNode> path, Resources request,
                             Map<String, Map<String, Long>> needs, boolean nonPreemptible) {
        Set<String> shortOf = resourcesIn(needs);
        Set<String> guaranteed = new HashSet<>();
        for (QuotaNode node : path) {
            for (Map.Entry<String, Long> r : request.asMap().entrySet()) {
                String k = r.getKey();
                if (k.equals(Resources.MAX_JOBS) || !node.min().has(k)) {
                    continue;
                }
                if (node.min().get(k) > 0) {
                    guaranteed.add(k);
                }
                if (node.name().equals(group) && shortOf.contains(k)
                        && r.getValue() > node.min().get(k) - ledger.usedOrReserved(node.name()).get(k)) {
                    return false;
                }
                if (nonPreemptible && r.getValue() > node.min().get(k) - ledger.countedGuaranteed(node.name()).get(k)) {
                    return false;
                }
            }
        }
        return guaranteed.containsAll(shortOf);
    }

    /** The resources short at some node of {@code needs}, sorted. */
    private static java.util.SortedSet<String> resourcesIn(Map<String, Map<String, Long>> needs) {
        java.util.SortedSet<String> resources = new java.util.TreeSet<>();
        needs.values().forEach(atNode -> resources.addAll(atNode.keySet()));
        return resources;
    }

    /**
     * Adds, at each ancestor whose min the request would exceed, the amount to free there: after the reclaim, A's
     * branch is within its guarantee at every level.
     */
    private void addMinNeeds(String group, List<QuotaNode> path, Resources request,
                             Map<String, Map<String, Long>> needs, Map<String, Resources> leaving) {
        for (QuotaNode node : path) {
            if (node.name().equals(group)) {
                continue;
            }
            for (Map.Entry<String, Long> r : request.asMap().entrySet()) {
                String k = r.getKey();
                // a min of 0 above the group guarantees its branch nothing to keep to (the seed's root declares 0)
                if (!k.equals(Resources.MAX_JOBS) && node.min().get(k) > 0) {
                    long used = ledger.usedOrReserved(node.name()).minus(leaving.getOrDefault(node.name(),
                            Resources.NONE)).get(k);
                    long min = node.min().get(k);
                    if (r.getValue() > min - used) { // both ≥ 0: cannot overflow
                        long over = used - min + r.getValue(); // > 0
                        needs.computeIfAbsent(node.name(), n -> new HashMap<>()).merge(k,
                                over < 0 ? Long.MAX_VALUE : over, Math::max);
                    }
                }
            }
        }
    }

    private boolean mayBeVictim(JobEntry e, Instant now) {
        return e.state() == JobState.ADMITTED && e.record() != null && !e.record().startedOutside()
                && e.chargedGroup() != null && !e.chargeUnknown() && e.evicting() == null && !e.unconfirmed()
                && !e.record().equals(e.evictionRefusedUnder())
                && (e.seenRunning() || e.confirmedVersion() != null)
                && e.job().preemptible() && e.job().stoppable() && e.marks().reclaimsWithin(now) < maxPerHour;
    }

    /** Whether {@code group} lies below {@code ancestor} (not equal to it). */
    private boolean below(String group, String ancestor) {
        for (QuotaNode node : ledger.tree().pathToRoot(group)) {
            if (!node.name().equals(group) && node.name().equals(ancestor)) {
                return true;
            }
        }
        return false;
    }

    /** The victim's group and its ancestors below the first node it shares with the reclaiming path. */
    private List<QuotaNode> victimSide(String group, Set<String> onPath) {
        List<QuotaNode> side = new ArrayList<>();
        for (QuotaNode node : ledger.tree().pathToRoot(group)) {
            if (onPath.contains(node.name())) {
                break;
            }
            side.add(node);
        }
        return side;
    }

    /** Whether suspending {@code e} frees some resource still short at a node both paths share. */
    private boolean helps(JobEntry e, Map<String, Map<String, Long>> needs, List<JobEntry> chosen) {
        for (QuotaNode node : ledger.tree().pathToRoot(e.chargedGroup())) {
            Map<String, Long> need = needs.get(node.name());
            if (need == null) {
                continue;
            }
            for (Map.Entry<String, Long> r : need.entrySet()) {
                if (e.charged().get(r.getKey()) > 0 && freed(node.name(), r.getKey(), chosen) < r.getValue()) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Whether suspending {@code e} keeps every node on its side at or above its min (with the victims taken there) in
     * each resource of {@code freed}, the ones the reclaim is for; what it holds of others is not judged.
     */
    private boolean keepsMin(JobEntry e, List<QuotaNode> victimSide, Map<String, Resources> taken, Set<String> freed) {
        for (QuotaNode m : victimSide) {
            Resources already = taken.getOrDefault(m.name(), Resources.NONE);
            for (Map.Entry<String, Long> r : e.charged().asMap().entrySet()) {
                String k = r.getKey();
                // a victim that frees none of a resource takes nothing of it from its group
                if (!k.equals(Resources.MAX_JOBS) && r.getValue() > 0 && freed.contains(k) && m.min().has(k)
                        && ledger.usage(m.name()).get(k) - already.get(k) - r.getValue() < m.min().get(k)) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Whether suspending {@code victims} frees every amount needed. */
    private boolean satisfied(Map<String, Map<String, Long>> needs, List<JobEntry> victims) {
        for (Map.Entry<String, Map<String, Long>> node : needs.entrySet()) {
            for (Map.Entry<String, Long> r : node.getValue().entrySet()) {
                if (freed(node.getKey(), r.getKey(), victims) < r.getValue()) {
                    return false;
                }
            }
        }
        return true;
    }

    /** How much of a resource suspending {@code victims} frees at a node (saturating). */
    private long freed(String node, String resource, List<JobEntry> victims) {
        long sum = 0;
        for (JobEntry v : victims) {
            for (QuotaNode n : ledger.tree().pathToRoot(v.chargedGroup())) {
                if (n.name().equals(node)) {
                    long add = v.charged().get(resource);
                    sum = sum > Long.MAX_VALUE - add ? Long.MAX_VALUE : sum + add;
                    break;
                }
            }
        }
        return sum;
    }
}
