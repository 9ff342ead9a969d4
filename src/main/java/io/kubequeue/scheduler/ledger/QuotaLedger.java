package io.kubequeue.scheduler.ledger;

import io.kubequeue.collections.BoundedMaps;
import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.Explanation;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.QuotaNode;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.Resources;
import java.util.List;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The quota side of the core: the quota groups in force, what admitted jobs use at each node, what is used outside
 * kube-queue, charging and releasing, and the fit check with the shortfall that explains a miss.
 *
 * <p><b>Fit</b> (docs/behaviour.md §3): for every resource a job requests, admitted usage (plus usage outside
 * kube-queue at its own group) + request ≤ max at its group and every ancestor that declares the resource; a
 * non-preemptible job must also keep non-preemptible usage + request ≤ min wherever min declares it. Amounts are
 * millicores, bytes and counts ({@link Resources}).
 *
 * <p>Only {@code Scheduler} calls it, under its lock. A charge taken off a node, or a drop in outside usage there, is
 * a release, told to the policy through {@code onRelease}.
 */
public final class QuotaLedger {

    /** A job's shape as far as fitting goes: its group, its request (with the job count), its preemptibility. */
    public record FitShape(String group, Resources request, boolean preemptible) {
        public static FitShape of(String group, Chargeable entry) {
            return new FitShape(group, entry.effectiveRequest(), entry.job().preemptible());
        }
    }

    /**
     * The first resource, on the path from the group up, where a job does not fit now; or the reason its group admits
     * nothing ({@code held}).
     *
     * @param ofMin   whether it is a non-preemptible job's min that is short, not a max
     * @param counted which groups of unknown use {@code inUse} counts at their max (see {@link UnknownUse}); empty
     *                when none
     */
    record Shortfall(String node, String resource, long request, long inUse, long limit, boolean ofMin,
                     Explanation held, Explanation counted) {
        Shortfall(String node, String resource, long request, long inUse, long limit, boolean ofMin) {
            this(node, resource, request, inUse, limit, ofMin, null, Explanation.empty());
        }

        static Shortfall held(String node, Explanation why) {
            return new Shortfall(node, null, 0, 0, 0, false, why, Explanation.empty());
        }
    }


    /** Where a shape was found short, and the {@link #roomClock} then. */
    private record ShortAt(String node, long roomClock) {
    }

    private QuotaTree tree = QuotaTree.EMPTY;
    /**
     * {@link #neverFits(FitShape)} per shape, for the tree in force (it reads nothing else): a retry-on-release
     * cycle asks it for every shape of every group of the tree, and releases come by the hundred a second under
     * load. Emptied whenever the tree changes, and bounded (jobs may ask for any amounts); empty: it may fit.
     */
    private final Map<FitShape, Optional<String>> neverFitsMemo = BoundedMaps.keepingRecentlyUsed(4096);
    /**
     * Where each shape was last found not to fit, and when ({@link #roomClock}): it cannot fit before that node gains
     * room, since the tree, which sets the limits, is the same (this is emptied when it changes) and usage there has
     * only grown. Saves a retry-on-release cycle the walk up the tree for every shape of every group under the
     * released root, most of which are short at a node the release did not touch. Bounded like
     * {@link #neverFitsMemo}.
     */
    private final Map<FitShape, ShortAt> shortAt = BoundedMaps.keepingRecentlyUsed(4096);
    /** Counts the events that gave some node room: a job's charge taken off its path, or a drop in outside usage. */
    private long roomClock;
    /** Per node, the {@link #roomClock} of the last event that gave it room. */
    private final Map<String, Long> roomGainedAt = new HashMap<>();
    /** Admitted jobs per group they are charged to, for the views (an O(groups) read, not a walk of every job). */
    private final Map<String, Integer> admittedIn = new HashMap<>();
    /** Admitted requests per node, each job counted at its group and every ancestor. */
    private final Map<String, Resources> usage = new HashMap<>();
    /** The part of {@link #usage} that non-preemptible jobs hold, checked against {@code min}. */
    private final Map<String, Resources> guaranteedUsage = new HashMap<>();
    /** The admitted jobs whose request cannot be read, and what they count for at each node above them. */
    private final UnknownUse unknown = new UnknownUse();
    /** The charges of jobs kube-queue did not admit, and what the groups above them leave out of them. */
    private final StartedOutsideCharges startedOutside = new StartedOutsideCharges(QuotaNode::max);
    /** The same for the non-preemptible ones, which the min check counts: capped above each group at its min. */
    private final StartedOutsideCharges startedOutsideGuaranteed = new StartedOutsideCharges(QuotaNode::min);
    /**
     * Room reserved per node for reclaiming jobs (each counted at its group and every ancestor): taken as used by
     * every fit check, so that neither the victims nor anyone else takes the room a reclaim frees before its
     * preemptor is admitted (see {@code Reclaims}). Empty unless a reclaim is in progress.
     */
    private final Map<String, Resources> reserved = new HashMap<>();
    /** Usage outside kube-queue, per group (ResourceQuota: pods kube-queue did not admit). */
    private final Map<String, Resources> external = new HashMap<>();
    /** Per group: how many charges moved to outside usage so far; a recount started before a move is stale. */
    private final Map<String, Long> externalRecountTicket = new HashMap<>();
    /** Set under the ResourceQuota plugin: see {@link #trackExternalUsage}. */
    private Consumer<String> externalRecount;
    private Consumer<String> onRelease = group -> { };

    /** Usage as counted (see {@link #counted}) plus reservations at a node: what a fit check counts as taken. */
    public Resources usedOrReserved(String node) {
        Resources used = counted(node);
        if (reserved.isEmpty()) {
            return used;
        }
        Resources held = reserved.get(node);
        return held == null ? used : used.plus(held);
    }

    /**
     * Usage plus the reservations not yet backed by the jobs on their way out at a node: what a preemptor whose own
     * victims are gone must fit beside (see {@code Reclaims}). Never less than the usage itself, so it cannot admit
     * past a max while any job still runs.
     */
    private Resources usedOrUnbackedReserved(String node, Map<String, Resources> leaving, Resources own) {
        Resources used = counted(node);
        Resources held = reserved.get(node);
        if (held == null) {
            return used;
        }
        Resources others = held.minus(own);
        Resources out = leaving.get(node);
        return used.plus(out == null ? others : others.minus(out));
    }

    /**
     * Whether a held preemptor (its own reservation already given back) fits now, counting the other reclaims'
     * reservations only as far as their victims, still charged here, do not back them ({@code leaving}, per node).
     */
    public boolean fitsBeside(String group, Chargeable entry, Map<String, Resources> leaving) {
        return fitsBeside(group, entry, Resources.NONE, leaving);
    }

    /** As {@link #fitsBeside(String, Chargeable, Map)}, its own reservation ({@code own}) still held. */
    public boolean fitsBeside(String group, Chargeable entry, Resources own, Map<String, Resources> leaving) {
        return shortfall(group, entry.effectiveRequest(), entry.job().preemptible(),
                node -> usedOrUnbackedReserved(node, leaving, own)) == null;
    }

    /**
     * Whether a held preemptor, its own reservation {@code own} still held, fits once the jobs on their way out at
     * each node ({@code leaving}: the other reclaims' victims, still charged) are gone: usage and reservations minus
     * that room, as {@code ReclaimPlanner} counted it when it chose the victims. If so, the room its plan counted on
     * is still coming, and it waits for it ({@code Reclaims}).
     */
    public boolean fitsOnceGone(String group, Chargeable entry, Resources own, Map<String, Resources> leaving) {
        return shortfall(group, entry.effectiveRequest(), entry.job().preemptible(),
                node -> usedOrReserved(node).minus(own).minus(leaving.getOrDefault(node, Resources.NONE))) == null;
    }

    /** Reserves {@code amount} at the group and every ancestor (see {@link #reserved}). */
    public void reserve(String group, Resources amount) {
        for (QuotaNode node : tree.pathToRoot(group)) {
            reserved.merge(node.name(), amount, Resources::plus);
        }
    }

    /** Gives back a reservation made with {@link #reserve}: room for others again, told as a release. */
    public void unreserve(String group, Resources amount) {
        for (QuotaNode node : tree.pathToRoot(group)) {
            gainedRoom(node.name());
            subtract(reserved, node.name(), amount);
        }
        onRelease.accept(group);
    }

    /** Tells {@code onRelease} the group whose tree something was released in (it may now fit more). */
    public void reportReleasesTo(Consumer<String> onRelease) {
        this.onRelease = Objects.requireNonNull(onRelease, "onRelease");
    }

    public QuotaTree tree() {
        return tree;
    }

    /**
     * Replaces the quota groups and recomputes usage from the admitted jobs: each stays charged to the group its
     * record names or, if that group no longer exists, to the group it resolves to now.
     */
    /**
     * This ledger made the same as {@code original} (for {@code Scheduler.copy}): its tree, usage, reservations and
     * outside usage, and the charge of each job's copy ({@code entries}: original to copy). The memos start empty
     * (they are caches). A recount of outside usage the original asks for is asked of nobody here: a copy never
     * reaches the cluster, but it counts a released job's pods as outside as the original does.
     */
    public void copyFrom(QuotaLedger original, Map<? extends Chargeable, ? extends Chargeable> entries) {
        tree = original.tree;
        admittedIn.putAll(original.admittedIn);
        usage.putAll(original.usage);
        guaranteedUsage.putAll(original.guaranteedUsage);
        reserved.putAll(original.reserved);
        external.putAll(original.external);
        externalRecountTicket.putAll(original.externalRecountTicket);
        if (original.externalRecount != null) {
            externalRecount = group -> { };
        }
        startedOutside.copyFrom(original.startedOutside);
        startedOutsideGuaranteed.copyFrom(original.startedOutsideGuaranteed);
        unknown.copyFrom(original.unknown, entries);
        entries.forEach((from, to) -> {
            to.charge(from.charge()); // a value: shared
            to.admittedCountedIn(from.admittedCountedIn());
        });
    }

    public void replaceTree(QuotaTree newTree, Collection<? extends Chargeable> admitted) {
        this.tree = Objects.requireNonNull(newTree, "tree");
        neverFitsMemo.clear();
        shortAt.clear();
        roomGainedAt.clear();
        usage.clear();
        guaranteedUsage.clear();
        unknown.clear();
        startedOutside.clear();
        startedOutsideGuaranteed.clear();
        reserved.clear(); // the scheduler ends every reclaim when the groups change
        admittedIn.clear();
        for (Chargeable entry : admitted) {
            entry.charge(entry.charge().withGroup(groupToCharge(entry, entry.charge().record())));
            entry.admittedCountedIn(null);
            countAdmitted(entry);
            addUsage(entry);
        }
    }

    /** How many admitted jobs are charged to the group itself. */
    public int admittedIn(String group) {
        return admittedIn.getOrDefault(group, 0);
    }

    /** The groups admitted jobs are charged to. */
    public Set<String> groupsWithAdmitted() {
        return admittedIn.keySet();
    }

    private void countAdmitted(Chargeable entry) {
        uncountAdmitted(entry);
        if (entry.chargedGroup() != null) {
            admittedIn.merge(entry.chargedGroup(), 1, Integer::sum);
            entry.admittedCountedIn(entry.chargedGroup());
        }
    }

    private void uncountAdmitted(Chargeable entry) {
        String group = entry.admittedCountedIn();
        if (group != null) {
            entry.admittedCountedIn(null);
            if (admittedIn.merge(group, -1, Integer::sum) == 0) {
                admittedIn.remove(group);
            }
        }
    }

    public Resources usage(String group) {
        return usage.getOrDefault(group, Resources.NONE);
    }

    public Resources guaranteedUsage(String group) {
        return guaranteedUsage.getOrDefault(group, Resources.NONE);
    }

    public Resources externalUsage(String group) {
        return external.getOrDefault(group, Resources.NONE);
    }

    public long externalRecountTicket(String group) {
        return externalRecountTicket.getOrDefault(group, 0L);
    }

    /** See {@code Scheduler.setExternalUsage}. */
    public void setExternalUsage(String group, Resources used, long ticket) {
        if (ticket != externalRecountTicket(group)) {
            return;
        }
        Resources old = external.getOrDefault(group, Resources.NONE);
        gainedRoom(group);
        if (used.isEmpty()) {
            external.remove(group);
        } else {
            external.put(group, used);
        }
        for (Map.Entry<String, Long> r : old.asMap().entrySet()) {
            if (used.get(r.getKey()) < r.getValue()) {
                onRelease.accept(group);
                return;
            }
        }
    }

    /** See {@code Scheduler.trackExternalUsage}. */
    public void trackExternalUsage(Consumer<String> recount) {
        this.externalRecount = Objects.requireNonNull(recount, "recount");
    }

    /**
     * Charges a job to the group its record names (see {@link #groupToCharge}) and every ancestor, and resets what
     * the job knows about its admission's answer.
     *
     * @param unknown the job runs but its request cannot be read: it is charged one job, holds its own group, and
     *                counts at its group's max above it (see {@link UnknownUse})
     */
    public void charge(Chargeable entry, AdmissionRecord record, boolean unknown) {
        charge(entry, record, unknown, null);
    }

    /**
     * As {@link #charge(Chargeable, AdmissionRecord, boolean)}, never below {@code floor}: per resource, the charge is
     * the higher of the job's request and the floor (what its pods may still hold, docs/behaviour.md "A running job's
     * charge"). A job of unknown use is charged as such, whatever the floor.
     *
     * @param floor millicores, bytes and counts (the job count may be in it); null: none
     */
    public void charge(Chargeable entry, AdmissionRecord record, boolean unknown, Resources floor) {
        entry.charge(new Charge(record, groupToCharge(entry, record),
                unknown || floor == null ? entry.effectiveRequest() : entry.effectiveRequest().max(floor),
                !entry.job().preemptible(), unknown));
        countAdmitted(entry);
        addUsage(entry);
    }

    /**
     * Keeps an admitted job's charge as it is, re-labelled as started outside kube-queue (same group): a refusal of
     * our admission, the job having been started by hand meanwhile, then frees no room it uses.
     */
    public void relabelStartedOutside(Chargeable entry) {
        entry.charge(entry.charge().withRecord(new AdmissionRecord(entry.charge().record().group(),
                AdmissionRecord.STARTED_OUTSIDE)));
    }

    /**
     * Takes a job's charge off its path. The job is left in no state: the caller queues it, holds it, or forgets it.
     *
     * @param ran whether the job may have run: then its pods may still be counted outside (see
     *            {@link #trackExternalUsage}) and its end is a release
     */
    public void uncharge(Chargeable entry, boolean ran) {
        uncountAdmitted(entry);
        Charge charge = entry.charge();
        if (charge != null && charge.record() != null && charge.group() != null) {
            String group = charge.group();
            for (QuotaNode node : tree.pathToRoot(group)) {
                gainedRoom(node.name());
                subtract(usage, node.name(), charge.amount());
                if (charge.guaranteed()) {
                    subtract(guaranteedUsage, node.name(), charge.amount());
                }
            }
            if (charge.unknown()) {
                unknown.remove(entry, tree);
            }
            startedOutside.remove(entry.job().key());
            startedOutside.rehide(tree.pathToRoot(group), this::counted);
            startedOutsideGuaranteed.remove(entry.job().key());
            startedOutsideGuaranteed.rehide(tree.pathToRoot(group), this::countedGuaranteed);
            if (externalRecount != null) {
                // a recount that read this job as admitted is stale now, whatever happens next
                externalRecountTicket.merge(group, 1L, Long::sum);
                if (ran) {
                    // its pods may still run: count them outside kube-queue until the recount says otherwise
                    external.merge(group, charge.amount().with(Resources.MAX_JOBS, 0), Resources::plus);
                }
                externalRecount.accept(group);
            }
            if (ran) {
                onRelease.accept(group);
            }
        }
        entry.charge(null);
    }

    private static void subtract(Map<String, Resources> usage, String node, Resources amount) {
        usage.computeIfPresent(node, (name, used) -> {
            Resources left = used.minus(amount);
            return left.isEmpty() ? null : left;
        });
    }

    private void addUsage(Chargeable entry) {
        Charge charge = entry.charge();
        if (charge == null || charge.group() == null) {
            return;
        }
        String group = charge.group();
        for (QuotaNode node : tree.pathToRoot(group)) {
            usage.merge(node.name(), charge.amount(), Resources::plus);
            if (charge.guaranteed()) {
                guaranteedUsage.merge(node.name(), charge.amount(), Resources::plus);
            }
        }
        if (charge.unknown()) {
            unknown.add(entry, tree);
        }
        if (charge.record() != null && charge.record().startedOutside()) {
            startedOutside.add(entry.job().key(), group, charge.amount());
            if (charge.guaranteed()) {
                startedOutsideGuaranteed.add(entry.job().key(), group, charge.amount());
            }
        }
        startedOutside.rehide(tree.pathToRoot(group), this::counted);
        startedOutsideGuaranteed.rehide(tree.pathToRoot(group), this::countedGuaranteed);
    }

    /**
     * What a node counts as used in a fit check: its subtree's usage, less what {@link StartedOutsideCharges} leaves
     * out above the groups whose started-outside charges exceed their max (issue 25). The read views and metrics show
     * the usage itself.
     */
    Resources counted(String node) {
        Resources used = usage.getOrDefault(node, Resources.NONE);
        Resources below = startedOutside.hiddenBelow(node);
        return below == null ? used : used.minus(below);
    }

    /**
     * What a node counts as non-preemptible use in a min check: as {@link #counted}, with each group's started-outside
     * non-preemptible charges counted above it only up to its min.
     */
    public Resources countedGuaranteed(String node) {
        Resources used = guaranteedUsage.getOrDefault(node, Resources.NONE);
        Resources below = startedOutsideGuaranteed.hiddenBelow(node);
        return below == null ? used : used.minus(below);
    }

    /**
     * The group an admitted job uses: its record's group if that is a declared group, else where it would be
     * queued now. Under the ResourceQuota plugin the group is always the namespace, whatever the record says (a
     * record written under the ElasticQuotaTree plugin names a tree node, which is no namespace's quota).
     */
    private String groupToCharge(Chargeable entry, AdmissionRecord record) {
        if (!tree.groupsAreNamespaces() && record.group() != null && tree.node(record.group()).isPresent()) {
            return record.group();
        }
        return groupOf(entry.job());
    }

    /**
     * The group a running job is charged to when no record of kube-queue's says: where it would be queued now, or, if
     * its label names a group not open to its namespace ({@link QuotaTree#labelRefusal}), its namespace's own group, so
     * that what runs is charged where its team's quota is; null if neither exists.
     */
    public String groupOf(JobObservation job) {
        return tree.groupFor(job.key().namespace(), job.quotaName())
                .or(() -> tree.groupFor(job.key().namespace(), null)).map(QuotaNode::name).orElse(null);
    }

    /** Whether the job fits its group now (see the class comment). */
    public boolean fits(String group, Chargeable entry) {
        return shortfall(group, entry.effectiveRequest(), entry.job().preemptible()) == null;
    }

    /**
     * Whether the shape does not fit now and can fit some day (a shape that never fits is left to the caller,
     * which holds its jobs). A shape found short is remembered for the cycle ({@code notFittingNow}) and, with the
     * node it is short at, in {@link #shortAt}, which answers without a walk up the tree until that node gains room.
     */
    public boolean shortNow(FitShape shape, Set<FitShape> notFittingNow) {
        if (notFittingNow.contains(shape)) {
            return true;
        }
        ShortAt known = shortAt.get(shape);
        if (known != null && roomGainedAt.getOrDefault(known.node(), 0L) <= known.roomClock()) {
            notFittingNow.add(shape);
            return true;
        }
        if (neverFits(shape) != null) {
            return false;
        }
        Shortfall s = shortfall(shape.group(), shape.request(), shape.preemptible());
        if (s == null) {
            return false;
        }
        shortAt.put(shape, new ShortAt(s.node(), roomClock));
        notFittingNow.add(shape);
        return true;
    }

    /** Records that the node may have room it did not have: the shapes short there are checked again. */
    private void gainedRoom(String node) {
        roomGainedAt.put(node, ++roomClock);
    }

    /**
     * The first resource and node where the job does not fit now, with the numbers, e.g. "cpu: request 3, in use 3 of
     * max 4 in quota group G"; null if it fits.
     */
    public Explanation blocker(String group, Chargeable entry) {
        Shortfall s = shortfall(group, entry.effectiveRequest(), entry.job().preemptible());
        if (s == null) {
            return null;
        }
        if (s.held() != null) {
            return s.held();
        }
        String k = s.resource();
        Explanation numbers = Explanation.of(k + ": request " + Resources.format(k, s.request())
                + (s.ofMin() ? ", non-preemptible in use " : ", in use ") + Resources.format(k, s.inUse())
                + (s.ofMin() ? " of min " : " of max ") + Resources.format(k, s.limit()) + " in quota group "
                + s.node());
        return s.counted().isEmpty() ? numbers : numbers.then(" (").then(s.counted()).then(")");
    }

    /**
     * The least change of the tree that would let this request fit now, in the tree's own terms (issue 30, "the
     * smallest change that unblocks"): for every node on the path where it does not fit, each resource it is short
     * of and by how much — the max to raise, or, for a non-preemptible request, the min — and the room that other
     * groups under that node use above their min in that resource (what a reclaim could give back). A node that
     * admits nothing now is told as such. Empty if it fits. O(path × resources × children): for an API call.
     *
     * @param group       the job's quota group
     * @param request     its request (millicores, bytes, counts)
     * @param preemptible whether it may borrow beyond min
     */
    public List<Explanation> roomFor(String group, Resources request, boolean preemptible) {
        List<Explanation> out = new ArrayList<>();
        String below = null;
        for (QuotaNode node : tree.pathToRoot(group)) {
            if (node.heldBecause() != null) {
                out.add(Explanation.of("quota group " + node.name() + " admits nothing now: " + node.heldBecause()));
                return out;
            }
            Resources used = usedOrReserved(node.name());
            Resources outside = external.get(node.name());
            if (outside != null && node.name().equals(group)) {
                used = used.plus(outside);
            }
            Resources guaranteed = countedGuaranteed(node.name());
            for (Map.Entry<String, Long> r : request.asMap().entrySet()) {
                String k = r.getKey();
                long missing = node.max().has(k) ? r.getValue() - (node.max().get(k) - used.get(k)) : 0;
                if (missing > 0) {
                    out.add(Explanation.of("raise max " + k + " of quota group " + node.name() + " by "
                            + Resources.format(k, missing)));
                    borrowedBelow(node, below, k, missing, out);
                }
                long missingMin = !preemptible && !k.equals(Resources.MAX_JOBS) && node.min().has(k)
                        ? r.getValue() - (node.min().get(k) - guaranteed.get(k)) : 0;
                if (missingMin > 0) {
                    out.add(Explanation.of("raise min " + k + " of quota group " + node.name() + " by "
                            + Resources.format(k, missingMin)));
                }
            }
            below = node.name();
        }
        return out;
    }

    /** The room the children of {@code node} other than {@code onPath} use above their min in {@code k}. */
    private void borrowedBelow(QuotaNode node, String onPath, String k, long missing, List<Explanation> out) {
        if (onPath == null) {
            return;
        }
        for (QuotaNode child : tree.nodes()) {
            if (!node.name().equals(child.parentName()) || child.name().equals(onPath) || !child.min().has(k)) {
                continue;
            }
            long above = usage(child.name()).get(k) - child.min().get(k);
            if (above > 0) {
                out.add(Explanation.of(Resources.format(k, Math.min(above, missing)) + " " + k + " that quota group "
                        + child.name() + " uses above its min given back (a reclaim)"));
            }
        }
    }

    /**
     * The first resource, on the path from the group up, where the request does not fit now; null if it fits. Only a
     * failing check allocates, so the decision path stays cheap.
     */
    Shortfall shortfall(String group, Resources request, boolean preemptible) {
        return shortfall(group, request, preemptible, null);
    }

    /**
     * As {@link #shortfall(String, Resources, boolean)}; {@code usedAt} (null: {@link #usedOrReserved}) says what is
     * taken at a node, see {@link #fitsBeside} and {@link #fitsOnceGone}.
     */
    private Shortfall shortfall(String group, Resources request, boolean preemptible,
                                java.util.function.Function<String, Resources> usedAt) {
        for (QuotaNode node : tree.pathToRoot(group)) {
            if (node.heldBecause() != null) {
                return Shortfall.held(node.name(), Explanation.of("quota group " + node.name()
                        + " admits nothing now: " + node.heldBecause()));
            }
            UnknownUse.Count unread = unknown.at(node, request, false, tree, this::counted);
            if (unread.held() != null) {
                return Shortfall.held(node.name(), unread.held());
            }
            Resources used = usedAt == null ? usedOrReserved(node.name()) : usedAt.apply(node.name());
            Resources outside = external.get(node.name());
            if (outside != null && node.name().equals(group)) {
                used = used.plus(outside); // saturates, never wraps
            }
            if (unread != UnknownUse.Count.NONE) {
                used = used.plus(unread.extra()); // only then: the fit check is the decision path's hot loop
            }
            Shortfall s = shortOf(node, request, used, node.max(), false, unread);
            if (s == null && !preemptible) {
                UnknownUse.Count guaranteed = unknown.at(node, request, true, tree, this::countedGuaranteed);
                if (guaranteed.held() != null) {
                    return Shortfall.held(node.name(), guaranteed.held());
                }
                Resources guaranteedUsed = countedGuaranteed(node.name());
                s = shortOf(node, request, guaranteed == UnknownUse.Count.NONE ? guaranteedUsed
                        : guaranteedUsed.plus(guaranteed.extra()), node.min(), true, guaranteed);
            }
            if (s != null) {
                return s;
            }
        }
        return null;
    }

    /**
     * What the jobs of unknown use count for at a node above what is charged there, for a request that must fit its
     * max (see {@link UnknownUse}); null if they hold the node for this request (it is their own group, or a resource
     * the request asks for is unbounded there).
     */
    public Resources unknownExtra(QuotaNode node, Resources request) {
        UnknownUse.Count u = unknown.at(node, request, false, tree, this::counted);
        return u.held() != null ? null : u.extra();
    }

    /** The first resource whose limit, where declared, used + request exceeds; null if none. */
    private static Shortfall shortOf(QuotaNode node, Resources request, Resources used, Resources limit, boolean ofMin,
                                     UnknownUse.Count unknown) {
        for (Map.Entry<String, Long> r : request.asMap().entrySet()) {
            String k = r.getKey();
            if (ofMin && k.equals(Resources.MAX_JOBS)) {
                continue;
            }
            // written as request > limit - used so that it cannot overflow (both are ≥ 0, sums saturate)
            if (limit.has(k) && r.getValue() > limit.get(k) - used.get(k)) {
                return new Shortfall(node.name(), k, r.getValue(), used.get(k), limit.get(k), ofMin, null,
                        unknown.counted().getOrDefault(k, Explanation.empty()));
            }
        }
        return null;
    }

    /**
     * Why the shape's request exceeds some max (or, non-preemptible, some min) on the path even with nothing
     * admitted; null if it can fit some day. Remembered per shape until the tree changes.
     */
    public String neverFits(FitShape shape) {
        return neverFitsMemo.computeIfAbsent(shape, s -> Optional.ofNullable(neverFitsUnderTree(s))).orElse(null);
    }

    private String neverFitsUnderTree(FitShape shape) {
        Resources request = shape.request();
        for (QuotaNode node : tree.pathToRoot(shape.group())) {
            for (Map.Entry<String, Long> r : request.asMap().entrySet()) {
                String k = r.getKey();
                if (node.max().has(k) && r.getValue() > node.max().get(k)) {
                    return k + ": request " + Resources.format(k, r.getValue()) + " exceeds max "
                            + Resources.format(k, node.max().get(k)) + " of quota group " + node.name();
                }
                if (!shape.preemptible() && !k.equals(Resources.MAX_JOBS) && node.min().has(k)
                        && r.getValue() > node.min().get(k)) {
                    return k + ": request " + Resources.format(k, r.getValue()) + " exceeds min "
                            + Resources.format(k, node.min().get(k)) + " of quota group " + node.name()
                            + " (a non-preemptible job must fit in min)";
                }
            }
        }
        return null;
    }
}
