package io.kubequeue.scheduler;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

import io.kubequeue.scheduler.ledger.QuotaLedger;
import io.kubequeue.scheduler.model.DryRun;
import io.kubequeue.scheduler.model.Explanation;
import io.kubequeue.scheduler.model.GroupView;
import io.kubequeue.scheduler.model.Hold;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.scheduler.model.PendingView;
import io.kubequeue.scheduler.model.QuotaNode;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.queue.GroupQueue;
import io.kubequeue.scheduler.queue.JobEntry;
import io.kubequeue.scheduler.queue.QueueManager;
import io.kubequeue.scheduler.queue.QueueOrder;

/**
 * Read views of the core for the API, metrics and events: groups, queue positions, the reason a job waits, and
 * dry runs. Changes nothing. O(jobs) at most, for an API call, not for the decision path; what a metrics refresh reads
 * ({@link #groups}, {@link #groupsWhoseHeadFits}) is O(groups × log n) (issue 27). Only
 * {@link Scheduler} calls it, under its lock.
 */
final class SchedulerViews {

    private final QueueManager queues;
    private final QuotaLedger ledger;
    private final QueuePolicy policy;

    SchedulerViews(QueueManager queues, QuotaLedger ledger, QueuePolicy policy) {
        this.queues = queues;
        this.ledger = ledger;
        this.policy = policy;
    }

    /** One group's jobs per {@link JobState}, and its oldest pending job's queue time, for {@link #groups}. */
    private static final class GroupCounts {
        final int[] byState = new int[JobState.values().length];
        Instant oldest;
    }

    /**
     * See {@link Scheduler#groups}: read from what the queues and the ledger count per group, O(groups × log n),
     * never a walk over the jobs (a metrics refresh asks for it every second, under the scheduler's lock, and one group
     * may hold 100,000 pending jobs; issue 27). {@link #groupsByWalk} is the same read by a walk, for tests.
     */
    List<GroupView> groups() {
        QuotaTree tree = ledger.tree();
        java.util.SortedSet<String> names = new TreeSet<>();
        for (QuotaNode node : tree.nodes()) {
            names.add(node.name());
        }
        for (GroupQueue queue : queues.queues()) {
            if (!queue.isEmpty()) {
                names.add(queue.group());
            }
        }
        names.addAll(queues.groupsWithHeld());
        names.addAll(ledger.groupsWithAdmitted());
        List<GroupView> views = new ArrayList<>(names.size());
        for (String name : names) {
            GroupQueue queue = queues.queue(name);
            int active = queue == null ? 0 : queue.active.size();
            int backedOff = queue == null ? 0 : queue.backedOff.size();
            int held = queues.heldIn(name);
            Instant oldest = queue == null ? null : queue.since.oldest();
            Instant oldestHeld = queues.oldestHeldIn(name);
            if (oldest == null || oldestHeld != null && oldestHeld.isBefore(oldest)) {
                oldest = oldestHeld;
            }
            QuotaNode node = tree.node(name).orElse(new QuotaNode(name, null, List.of(name), null, null));
            views.add(new GroupView(name, node.parentName(), node.min(), node.max(), ledger.usage(name),
                    ledger.externalUsage(name), active + backedOff + held, ledger.admittedIn(name), active, backedOff,
                    held, oldest, node.namespaces()));
        }
        return views;
    }

    /** {@link #groups} by one pass over every job: the reference the tests compare it with. */
    List<GroupView> groupsByWalk() {
        QuotaTree tree = ledger.tree();
        Map<String, GroupCounts> counts = new HashMap<>();
        for (QuotaNode node : tree.nodes()) {
            counts.put(node.name(), new GroupCounts());
        }
        for (JobEntry e : queues.all()) {
            String group = e.currentGroup();
            if (group == null || e.state() == JobState.HELD && e.hold().kind() == Hold.Reason.NO_QUOTA_GROUP) {
                continue;
            }
            GroupCounts n = counts.computeIfAbsent(group, g -> new GroupCounts());
            n.byState[e.state().ordinal()]++;
            if (e.state() != JobState.ADMITTED && (n.oldest == null || e.queuedAt().isBefore(n.oldest))) {
                n.oldest = e.queuedAt();
            }
        }
        List<GroupView> views = new ArrayList<>();
        for (String name : new TreeSet<>(counts.keySet())) {
            GroupCounts n = counts.get(name);
            int active = n.byState[JobState.ACTIVE.ordinal()];
            int backedOff = n.byState[JobState.BACKOFF.ordinal()];
            int held = n.byState[JobState.HELD.ordinal()];
            QuotaNode node = tree.node(name).orElse(new QuotaNode(name, null, List.of(name), null, null));
            views.add(new GroupView(name, node.parentName(), node.min(), node.max(), ledger.usage(name),
                    ledger.externalUsage(name), active + backedOff + held,
                    n.byState[JobState.ADMITTED.ordinal()], active, backedOff, held, n.oldest,
                    node.namespaces()));
        }
        return views;
    }

    /** See {@link Scheduler#groupsWhoseHeadFits}. */
    Set<String> groupsWhoseHeadFits() {
        Set<String> fitting = new TreeSet<>();
        for (GroupQueue queue : queues.queues()) {
            JobEntry head = queue.head();
            if (head != null && ledger.fits(queue.group(), head)) {
                fitting.add(queue.group());
            }
        }
        return fitting;
    }

    /** See {@link Scheduler#pending}. */
    List<PendingView> pending(String group) {
        List<JobEntry> waiting = new ArrayList<>();
        // a job reclaiming its min is admitted first, once its victims are seen suspended
        queues.held().stream().filter(e -> group.equals(e.group()) && e.hold().kind() == Hold.Reason.RECLAIMING)
                .sorted(QueueOrder.JOBS).forEach(waiting::add);
        GroupQueue queue = queues.queue(group);
        if (queue != null) {
            waiting.addAll(queue.active);
            queue.backedOff.forEach(waiting::add);
            waiting.subList(waiting.size() - queue.active.size() - queue.backedOff.size(), waiting.size())
                    .sort(QueueOrder.JOBS);
        }
        queues.held().stream().filter(e -> group.equals(e.group()) && e.hold().kind() == Hold.Reason.NEVER_FITS)
                .sorted(QueueOrder.JOBS).forEach(waiting::add);
        List<PendingView> views = new ArrayList<>(waiting.size());
        JobEntry head = waiting.isEmpty() ? null : waiting.get(0);
        for (int i = 0; i < waiting.size(); i++) {
            JobEntry e = waiting.get(i);
            views.add(new PendingView(e.status(), i + 1, reason(e, head)));
        }
        return views;
    }

    /** See {@link Scheduler#pendingIn}. */
    List<PendingView> pendingIn(String namespace) {
        Set<String> groups = new TreeSet<>();
        List<PendingView> found = new ArrayList<>();
        for (JobEntry e : queues.all()) {
            if (e.state() == JobState.ADMITTED || namespace != null && !e.job().key().namespace().equals(namespace)) {
                continue;
            }
            if (e.group() == null || e.state() == JobState.HELD && e.hold().kind() == Hold.Reason.NO_QUOTA_GROUP) {
                found.add(new PendingView(e.status(), 0, e.hold() == null ? Explanation.of("in no quota group")
                        : e.hold().reason()));
            } else {
                groups.add(e.group());
            }
        }
        found.sort(Comparator.comparing(v -> v.status().key()));
        for (String group : groups) { // each group listed once: O(jobs of the group), not once per job of it
            for (PendingView v : pending(group)) {
                if (namespace == null || v.status().key().namespace().equals(namespace)) {
                    found.add(v);
                }
            }
        }
        return found;
    }

    /** See {@link Scheduler#find}. */
    List<PendingView> find(String namespace, String name) {
        List<PendingView> found = new ArrayList<>();
        for (JobEntry e : queues.all()) {
            if (e.job().key().namespace().equals(namespace) && e.job().key().name().equals(name)) {
                if (e.state() == JobState.ADMITTED) {
                    found.add(new PendingView(e.status(), 0,
                            Explanation.of("admitted into quota group " + e.chargedGroup())));
                } else if (e.state() == JobState.HELD && e.hold().kind() == Hold.Reason.NO_QUOTA_GROUP) {
                    found.add(new PendingView(e.status(), 0, e.hold().reason()));
                } else {
                    GroupQueue queue = queues.queue(e.group());
                    found.add(new PendingView(e.status(), positionOf(e),
                            reason(e, queue == null ? null : queue.head())));
                }
            }
        }
        found.sort(Comparator.comparing(v -> v.status().key()));
        return found;
    }

    /** A pending job's place in its group, as {@link #pending} numbers it, without listing the group. */
    private int positionOf(JobEntry e) {
        GroupQueue queue = queues.queue(e.group());
        long reclaiming = queues.held().stream().filter(h -> e.group().equals(h.group())
                && h.hold().kind() == Hold.Reason.RECLAIMING && (e.state() != JobState.HELD
                || e.hold().kind() != Hold.Reason.RECLAIMING || QueueOrder.JOBS.compare(h, e) < 0)).count();
        if (e.state() == JobState.HELD && e.hold().kind() == Hold.Reason.RECLAIMING) {
            return (int) reclaiming + 1; // first, before every queued job
        }
        if (e.state() == JobState.HELD) { // never fits: after every queued job, in queue order among the held
            long heldBefore = queues.held().stream().filter(h -> e.group().equals(h.group())
                    && h.hold().kind() == Hold.Reason.NEVER_FITS && QueueOrder.JOBS.compare(h, e) < 0).count();
            return (int) reclaiming + (queue == null ? 0 : queue.active.size() + queue.backedOff.size())
                    + (int) heldBefore + 1;
        }
        return (int) reclaiming + queue.ahead(e) + 1;
    }

    /** See {@link Scheduler#dryRun}. */
    DryRun dryRun(JobObservation job) {
        Optional<QuotaNode> node = ledger.tree().groupFor(job.key().namespace(), job.quotaName());
        JobEntry e = queues.detachedEntry(job, node.map(QuotaNode::name).orElse(null));
        if (node.isEmpty()) {
            return new DryRun(null, e.priority(), false, 0, Explanation.of(queues.noGroupReason(job)));
        }
        String neverFits = ledger.neverFits(QuotaLedger.FitShape.of(e.group(), e));
        if (neverFits != null) {
            return new DryRun(e.group(), e.priority(), false, 0,
                    Explanation.of(neverFits + "; it could never be admitted"));
        }
        GroupQueue queue = queues.queue(e.group());
        int ahead = queue == null ? 0 : queue.ahead(e);
        Explanation blocker = ledger.blocker(e.group(), e); // null exactly when it fits: one walk up the tree, not two
        boolean fits = blocker == null;
        String waits = policy.fitsButWaits(ahead);
        Explanation reason = blocker != null ? blocker : Explanation.of(waits != null ? waits : "fits now");
        return new DryRun(e.group(), e.priority(), fits, ahead + 1, reason);
    }

    /** Why a pending job is not admitted, with the numbers. */
    private Explanation reason(JobEntry e, JobEntry head) {
        if (e.state() == JobState.HELD) {
            return e.hold().reason();
        }
        String when = e.state() == JobState.BACKOFF ? "backing off until "
                + e.retryAt().truncatedTo(ChronoUnit.MILLIS) + " (" + e.attempts()
                + (e.attempts() == 1 ? " try)" : " tries)")
                : "tried in the next cycle";
        Explanation behind = head != null && e != head ? policy.waitsBehindHead(e, head, when) : null;
        if (behind != null) {
            return behind;
        }
        Explanation blocker = ledger.blocker(e.group(), e);
        return (blocker == null ? Explanation.of("fits now; ") : blocker.then("; ")).then(when);
    }

    /**
     * See {@code Scheduler.unblock}: the tree changes that would let the job fit now, then the job whose end the
     * last replay admits it after.
     *
     * @param freedBy for each job the last replay at median run times started, the job whose end it started after
     * @param ends    each job's predicted end in that replay
     */
    List<Explanation> unblock(io.kubequeue.scheduler.model.JobKey key,
                              Map<io.kubequeue.scheduler.model.JobKey, io.kubequeue.scheduler.model.JobKey> freedBy,
                              Map<io.kubequeue.scheduler.model.JobKey, Instant> ends) {
        JobEntry entry = queues.get(key);
        if (entry == null || entry.state() == JobState.ADMITTED || entry.group() == null) {
            return List.of();
        }
        List<Explanation> out = new ArrayList<>(ledger.roomFor(entry.group(), entry.effectiveRequest(),
                entry.job().preemptible()));
        if (out.isEmpty()) {
            return List.of();
        }
        io.kubequeue.scheduler.model.JobKey freeingKey = freedBy.get(key);
        JobEntry freeing = freeingKey == null ? null : queues.get(freeingKey);
        if (freeing != null) {
            Instant end = ends.get(freeingKey);
            out.add(Explanation.job(freeingKey, freeing.group()).then(" ending"
                    + (end == null ? "" : " (expected " + end.truncatedTo(ChronoUnit.SECONDS) + ")")));
        }
        return out;
    }
}
