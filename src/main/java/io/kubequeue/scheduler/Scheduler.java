package io.kubequeue.scheduler;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The in-memory queue manager: one queue per quota group, usage per group, and the admission decisions.
 *
 * <p>Every method is synchronized: decisions are cheap in-memory work, and the Kubernetes writes they lead
 * to happen outside the lock. The scheduler never talks to the cluster; it is fed {@link JobObservation}s and
 * {@link QuotaTree}s and returns {@link Admission}s.
 *
 * <h2>How a cycle stays cheap</h2>
 * Pending jobs live in three places: the <em>active</em> queue of their group (a sorted set), the global
 * <em>backoff</em> set (sorted by retry time), or <em>held</em> (no group, or can never fit). A cycle only
 * looks at active jobs, merging the heads of all groups through a sorted set of groups, so each step costs
 * O(log groups + log jobs). Under the default policy every job tried either is admitted or leaves the active
 * queue for backoff, so a cycle costs O(tried × log n), never a scan of the backed-off or held jobs.
 *
 * <h2>Queue order</h2>
 * Higher priority first, then earlier creation time, then namespace/name (docs/behaviour.md §4). An update to a
 * job keeps its creation time, so it never moves back.
 */
public final class Scheduler {

    /**
     * Admission time format written into {@link AdmissionRecord#admittedAt()}: RFC 3339 in UTC, always with
     * milliseconds (e.g. {@code 2026-11-29T22:04:14.000Z}), so two admissions of one job in the same second
     * still have different records.
     */
    public static final DateTimeFormatter ADMITTED_AT = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSX")
            .withZone(ZoneOffset.UTC);

    /**
     * Tunables of the core.
     *
     * @param policy         how queues are worked
     * @param initialBackoff first unschedulable backoff (seed/kube-scheduler: 1 s)
     * @param maxBackoff     backoff cap (kube-scheduler: 20 s); the backoff doubles from initial to this
     */
    public record Settings(SchedulingPolicy policy, Duration initialBackoff, Duration maxBackoff) {
        public Settings {
            Objects.requireNonNull(policy, "policy");
            if (initialBackoff.isNegative() || initialBackoff.isZero() || maxBackoff.compareTo(initialBackoff) < 0) {
                throw new IllegalArgumentException("backoff must satisfy 0 < initial <= max, got initial="
                        + initialBackoff + " max=" + maxBackoff);
            }
        }

        /** The default policy with kube-scheduler's backoff, 1 s doubling to 20 s. */
        public static Settings defaults() {
            return new Settings(SchedulingPolicy.DEFAULT, Duration.ofSeconds(1), Duration.ofSeconds(20));
        }
    }

    /** Where a job stands inside the scheduler. */
    public enum State {
        /** Pending, in its group's queue, tried in the next cycle. */
        ACTIVE,
        /** Pending, did not fit; tried again at {@link JobStatus#retryAt()}. */
        BACKOFF,
        /** Pending, not tried until the quota groups change (see {@link JobStatus#hold()}). */
        HELD,
        /** Admitted: its request is charged to its group and every ancestor. */
        ADMITTED
    }

    /**
     * A read-only view of one job, for tests and events.
     *
     * @param key      the job
     * @param state    where it stands
     * @param group    the group it queues in (pending) or is charged to (admitted); null if none
     * @param request  its request (millicores, bytes, counts)
     * @param attempts how many times it was tried and did not fit, or had its admission refused
     * @param retryAt  when a backed-off job is tried again; null otherwise
     * @param hold     why a held job is held; null otherwise
     * @param record   the admission record of an admitted job; null otherwise
     */
    public record JobStatus(JobKey key, State state, String group, Resources request, int attempts,
                            Instant retryAt, Hold hold, AdmissionRecord record) {
    }

    private static final Comparator<Entry> QUEUE_ORDER = Comparator
            .comparingInt((Entry e) -> -e.job.priority())
            .thenComparing(e -> e.job.createdAt())
            .thenComparing(e -> e.job.key());

    private static final Comparator<Entry> BACKOFF_ORDER = Comparator
            .comparing((Entry e) -> e.retryAt)
            .thenComparing(QUEUE_ORDER);

    private static final Comparator<GroupQueue> HEAD_ORDER = (a, b) -> {
        int byHead = QUEUE_ORDER.compare(a.active.first(), b.active.first());
        return byHead != 0 ? byHead : a.group.compareTo(b.group);
    };

    private final Settings settings;
    private final Clock clock;

    private QuotaTree tree = QuotaTree.EMPTY;
    private final Map<JobKey, Entry> jobs = new HashMap<>();
    private final Map<String, GroupQueue> queues = new HashMap<>();
    private final TreeSet<Entry> backoff = new TreeSet<>(BACKOFF_ORDER);
    private final Map<JobKey, Entry> held = new LinkedHashMap<>();
    private final Map<String, Resources> usage = new HashMap<>();
    private final List<Hold> newHolds = new ArrayList<>();

    /**
     * @param settings policy and backoff bounds
     * @param clock    time source; tests pass a fixed or stepping clock
     */
    public Scheduler(Settings settings, Clock clock) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** The policy and backoff bounds in force. */
    public Settings settings() {
        return settings;
    }

    /**
     * Takes in the latest state of one job. Idempotent: the same observation twice changes nothing.
     *
     * <ul>
     *   <li>{@code QUEUED}: queued (or its request, priority and labels updated in place). If the job is
     *       admitted here and carries the very admission record we wrote, it was suspended again: its quota
     *       is released and it is queued again. A record we do not hold (an older admission) means the
     *       observation is stale, and it is ignored.</li>
     *   <li>{@code ADMITTED}: charged to the group its record names (start-up recovery, or another
     *       replica's admission).</li>
     *   <li>{@code UNSUSPENDED_WITHOUT_RECORD}: ignored unless the job was queued here; then it was started
     *       behind our back and is charged to its group, so quota is never over-admitted.</li>
     *   <li>{@code FINISHED}: forgotten, its quota released.</li>
     * </ul>
     */
    public synchronized void observe(JobObservation observation) {
        Entry entry = jobs.get(observation.key());
        if (entry != null && observation.uid() != null && entry.job.uid() != null
                && !observation.uid().equals(entry.job.uid())) {
            if (observation.phase() == JobObservation.Phase.FINISHED) {
                return; // an older job of the same name ended; the one we hold is another
            }
            forget(entry); // deleted and re-created under the same name: the old job's quota is released
            entry = null;
        }
        switch (observation.phase()) {
            case FINISHED -> {
                if (entry != null) {
                    forget(entry);
                }
            }
            case QUEUED -> {
                if (entry == null) {
                    entry = new Entry(observation, clock.instant());
                    jobs.put(observation.key(), entry);
                    activate(entry);
                } else if (entry.state == State.ADMITTED) {
                    if (observation.record() != null && observation.record().equals(entry.record)) {
                        uncharge(entry);
                        entry.job = observation;
                        entry.attempts = 0;
                        activate(entry);
                    }
                    // else: an observation from before our admission reached the cache; ignore it
                } else {
                    update(entry, observation);
                }
            }
            case ADMITTED -> {
                AdmissionRecord record = observation.record();
                if (entry == null) {
                    entry = new Entry(observation, clock.instant());
                    jobs.put(observation.key(), entry);
                    charge(entry, record);
                } else if (entry.state != State.ADMITTED) {
                    dequeue(entry);
                    entry.job = observation;
                    charge(entry, record);
                } else if (!record.equals(entry.record) || !observation.request().equals(entry.job.request())) {
                    // another admission, or the running job's request changed (e.g. parallelism raised):
                    // charge what it uses now, even above max, so nothing else is admitted into that room
                    uncharge(entry);
                    entry.job = keepCreation(observation, entry.job);
                    charge(entry, record);
                }
            }
            case UNSUSPENDED_WITHOUT_RECORD -> {
                if (entry != null && entry.state != State.ADMITTED) {
                    dequeue(entry);
                    entry.job = observation;
                    String group = tree.groupFor(observation.key().namespace(), observation.quotaName())
                            .map(QuotaNode::name).orElse(null);
                    charge(entry, new AdmissionRecord(group, "unsuspended-outside-kube-queue"));
                }
            }
        }
    }

    /**
     * Replaces the quota groups. Usage is recomputed from the admitted jobs: each stays charged to the group
     * its record names or, if that group no longer exists (renamed, moved), to the group its namespace or
     * label resolves to now, so a renamed group never forgets what runs in it. Every pending job is
     * re-resolved and made active again, so held and backed-off jobs get a fresh chance at once.
     */
    public synchronized void replaceTree(QuotaTree newTree) {
        this.tree = Objects.requireNonNull(newTree, "tree");
        usage.clear();
        List<Entry> pending = new ArrayList<>();
        for (Entry entry : jobs.values()) {
            if (entry.state == State.ADMITTED) {
                entry.chargedGroup = groupToCharge(entry, entry.record);
                addUsage(entry.chargedGroup, entry.charged);
            } else {
                pending.add(entry);
            }
        }
        queues.clear();
        backoff.clear();
        held.clear();
        for (Entry entry : pending) {
            entry.attempts = 0;
            activate(entry);
        }
    }

    /**
     * Runs one scheduling cycle: moves expired backoffs back to their queues, then tries active jobs in queue
     * order across all groups. Every admission returned is already charged.
     */
    public synchronized CycleResult schedule() {
        Instant now = clock.instant();
        while (!backoff.isEmpty() && !backoff.first().retryAt.isAfter(now)) {
            Entry entry = backoff.pollFirst();
            entry.retryAt = null;
            activate(entry);
        }
        List<Admission> admissions = new ArrayList<>();
        TreeSet<GroupQueue> heads = new TreeSet<>(HEAD_ORDER);
        for (GroupQueue queue : queues.values()) {
            if (!queue.active.isEmpty()) {
                heads.add(queue);
            }
        }
        while (!heads.isEmpty()) {
            GroupQueue queue = heads.pollFirst();
            Entry entry = queue.active.pollFirst();
            boolean blocked = false;
            String neverFits = neverFits(queue.group, entry.effectiveRequest());
            if (neverFits != null) {
                hold(entry, Hold.Reason.NEVER_FITS, neverFits);
            } else if (fits(queue.group, entry.effectiveRequest())) {
                entry.state = null;
                AdmissionRecord record = new AdmissionRecord(queue.group,
                        ADMITTED_AT.format(now.truncatedTo(ChronoUnit.MILLIS)));
                charge(entry, record);
                admissions.add(new Admission(entry.job.key(), record, entry.job.request(),
                        Duration.between(entry.queuedAt, now).toMillis()));
            } else if (settings.policy() == SchedulingPolicy.BLOCKING_QUEUE) {
                entry.attempts++;
                queue.active.add(entry);
                blocked = true;
            } else {
                entry.attempts++;
                entry.state = State.BACKOFF;
                entry.retryAt = now.plus(backoffFor(entry.attempts));
                backoff.add(entry);
            }
            if (queue.active.isEmpty()) {
                queues.remove(queue.group);
            } else if (!blocked) {
                heads.add(queue);
            }
        }
        List<Hold> holds = List.copyOf(newHolds);
        newHolds.clear();
        return new CycleResult(admissions, holds);
    }

    /**
     * Hands back an admission the cluster refused (the {@code test} op failed, or the job is gone): the charge
     * is undone and the job goes to backoff. Ignored if the job has since moved on (another admission record).
     */
    public synchronized void admissionFailed(JobKey key, AdmissionRecord record) {
        Entry entry = jobs.get(key);
        if (entry == null || entry.state != State.ADMITTED || !record.equals(entry.record)) {
            return;
        }
        uncharge(entry);
        entry.attempts++;
        entry.state = State.BACKOFF;
        entry.retryAt = clock.instant().plus(backoffFor(entry.attempts));
        backoff.add(entry);
    }

    /** When the next backoff expires, so the caller knows when to run the next cycle without a new event. */
    public synchronized Optional<Instant> nextRetry() {
        return backoff.isEmpty() ? Optional.empty() : Optional.of(backoff.first().retryAt);
    }

    /** Whether a cycle now could admit anything (some queue has an active job). */
    public synchronized boolean hasActiveJobs() {
        return !queues.isEmpty();
    }

    /** One job's state, or empty if the scheduler does not know it (never managed, or finished). */
    public synchronized Optional<JobStatus> status(JobKey key) {
        Entry e = jobs.get(key);
        if (e == null) {
            return Optional.empty();
        }
        String group = e.state == State.ADMITTED ? e.chargedGroup : e.group;
        return Optional.of(new JobStatus(key, e.state, group, e.job.request(), e.attempts, e.retryAt, e.hold,
                e.record));
    }

    /** The usage of one group (including its descendants' admitted jobs); {@link Resources#NONE} if none. */
    public synchronized Resources usage(String group) {
        return usage.getOrDefault(group, Resources.NONE);
    }

    /** The quota groups in force. */
    public synchronized QuotaTree tree() {
        return tree;
    }

    /** Every job the scheduler holds, in no particular order. */
    public synchronized List<JobStatus> jobs() {
        List<JobStatus> all = new ArrayList<>();
        for (JobKey key : jobs.keySet()) {
            status(key).ifPresent(all::add);
        }
        return all;
    }

    // ---- internals -------------------------------------------------------------------------------------

    private Duration backoffFor(int attempts) {
        Duration d = settings.initialBackoff();
        for (int i = 1; i < attempts && d.compareTo(settings.maxBackoff()) < 0; i++) {
            d = d.multipliedBy(2);
        }
        return d.compareTo(settings.maxBackoff()) > 0 ? settings.maxBackoff() : d;
    }

    /** Puts a pending job into its group's active queue, or holds it if it has no group. */
    private void activate(Entry entry) {
        Optional<QuotaNode> group = tree.groupFor(entry.job.key().namespace(), entry.job.quotaName());
        if (group.isEmpty()) {
            String reason = tree.nodes().isEmpty() ? "no quota groups are in force yet (quota objects unreadable, or no valid ElasticQuotaTree)"
                    : entry.job.quotaName() != null && !entry.job.quotaName().isEmpty()
                    ? "quota group " + entry.job.quotaName() + " (label quota.scheduling.alibabacloud.com/name) does not exist"
                    : "namespace " + entry.job.key().namespace() + " belongs to no quota group";
            hold(entry, Hold.Reason.NO_QUOTA_GROUP, reason);
            return;
        }
        entry.group = group.get().name();
        entry.state = State.ACTIVE;
        entry.hold = null;
        queues.computeIfAbsent(entry.group, GroupQueue::new).active.add(entry);
    }

    private void hold(Entry entry, Hold.Reason kind, String reason) {
        Hold hold = new Hold(entry.job.key(), kind, reason);
        boolean changed = entry.lastHold == null || !entry.lastHold.equals(hold);
        entry.state = State.HELD;
        entry.hold = hold;
        entry.lastHold = hold;
        held.put(entry.job.key(), entry);
        if (changed) {
            newHolds.add(hold);
        }
    }

    /** Takes a pending job out of wherever it waits. */
    private void dequeue(Entry entry) {
        if (entry.state == State.ACTIVE) {
            GroupQueue queue = queues.get(entry.group);
            if (queue != null) {
                queue.active.remove(entry);
                if (queue.active.isEmpty()) {
                    queues.remove(entry.group);
                }
            }
        } else if (entry.state == State.BACKOFF) {
            backoff.remove(entry);
            entry.retryAt = null;
        } else if (entry.state == State.HELD) {
            held.remove(entry.job.key());
        }
    }

    private void update(Entry entry, JobObservation observation) {
        JobObservation old = entry.job;
        boolean placementChanged = old.priority() != observation.priority()
                || !old.request().equals(observation.request())
                || !Objects.equals(old.quotaName(), observation.quotaName())
                || old.preemptible() != observation.preemptible();
        if (!placementChanged) {
            entry.job = keepCreation(observation, old);
            return;
        }
        State previous = entry.state;
        Instant retryAt = entry.retryAt;
        dequeue(entry);
        entry.job = keepCreation(observation, old);
        if (previous == State.BACKOFF && old.request().equals(observation.request())
                && Objects.equals(old.quotaName(), observation.quotaName())) {
            entry.retryAt = retryAt;
            entry.state = State.BACKOFF;
            backoff.add(entry);
        } else {
            activate(entry);
        }
    }

    /** An update never moves a job back in its queue: the first creation time seen is kept. */
    private static JobObservation keepCreation(JobObservation next, JobObservation old) {
        if (next.createdAt().equals(old.createdAt())) {
            return next;
        }
        return new JobObservation(next.key(), next.uid(), next.phase(), next.request(), next.priority(), old.createdAt(),
                next.quotaName(), next.preemptible(), next.record());
    }

    private void forget(Entry entry) {
        if (entry.state == State.ADMITTED) {
            uncharge(entry);
        } else {
            dequeue(entry);
        }
        jobs.remove(entry.job.key());
    }

    private void charge(Entry entry, AdmissionRecord record) {
        entry.state = State.ADMITTED;
        entry.record = record;
        entry.hold = null;
        entry.retryAt = null;
        entry.charged = entry.effectiveRequest();
        entry.chargedGroup = groupToCharge(entry, record);
        addUsage(entry.chargedGroup, entry.charged);
    }

    /** The group an admitted job uses: its record's group if it exists, else where it would be queued now. */
    private String groupToCharge(Entry entry, AdmissionRecord record) {
        if (record.group() != null && tree.node(record.group()).isPresent()) {
            return record.group();
        }
        return tree.groupFor(entry.job.key().namespace(), entry.job.quotaName()).map(QuotaNode::name).orElse(null);
    }

    private void uncharge(Entry entry) {
        if (entry.record != null) {
            for (QuotaNode node : tree.pathToRoot(entry.chargedGroup)) {
                usage.computeIfPresent(node.name(), (name, used) -> {
                    Resources left = used.minus(entry.charged);
                    return left.isEmpty() ? null : left;
                });
            }
            retryAfterRelease(entry.chargedGroup);
        }
        entry.record = null;
        entry.chargedGroup = null;
        entry.charged = Resources.NONE;
        entry.state = null;
    }

    /** Under the strict policies a release retries, at once, every backed-off job that shares the released root. */
    private void retryAfterRelease(String group) {
        if (settings.policy() == SchedulingPolicy.DEFAULT || backoff.isEmpty() || group == null) {
            return;
        }
        List<QuotaNode> path = tree.pathToRoot(group);
        if (path.isEmpty()) {
            return;
        }
        String root = path.get(path.size() - 1).name();
        List<Entry> retry = new ArrayList<>();
        for (Entry e : backoff) {
            List<QuotaNode> p = tree.pathToRoot(e.group);
            if (!p.isEmpty() && p.get(p.size() - 1).name().equals(root)) {
                retry.add(e);
            }
        }
        for (Entry e : retry) {
            backoff.remove(e);
            e.retryAt = null;
            activate(e);
        }
    }

    private void addUsage(String group, Resources amount) {
        if (group == null) {
            return;
        }
        for (QuotaNode node : tree.pathToRoot(group)) {
            usage.merge(node.name(), amount, Resources::plus);
        }
    }

    private boolean fits(String group, Resources request) {
        for (QuotaNode node : tree.pathToRoot(group)) {
            Resources used = usage.getOrDefault(node.name(), Resources.NONE);
            for (Map.Entry<String, Long> r : request.asMap().entrySet()) {
                // written as request > max - used so that it cannot overflow (both are ≥ 0)
                if (node.max().has(r.getKey()) && r.getValue() > node.max().get(r.getKey()) - used.get(r.getKey())) {
                    return false;
                }
            }
        }
        return true;
    }

    /** A description of why the request exceeds some max on the path even with nothing admitted, or null. */
    private String neverFits(String group, Resources request) {
        for (QuotaNode node : tree.pathToRoot(group)) {
            for (Map.Entry<String, Long> r : request.asMap().entrySet()) {
                if (node.max().has(r.getKey()) && r.getValue() > node.max().get(r.getKey())) {
                    return r.getKey() + ": request " + Resources.format(r.getKey(), r.getValue()) + " exceeds max "
                            + Resources.format(r.getKey(), node.max().get(r.getKey())) + " of quota group "
                            + node.name();
                }
            }
        }
        return null;
    }

    private static final class Entry {
        JobObservation job;
        final Instant queuedAt;
        State state;
        String group;
        int attempts;
        Instant retryAt;
        Hold hold;
        Hold lastHold;
        AdmissionRecord record;
        String chargedGroup;
        Resources charged = Resources.NONE;

        Entry(JobObservation job, Instant queuedAt) {
            this.job = job;
            this.queuedAt = queuedAt;
        }

        /** The request plus one job of the {@link Resources#MAX_JOBS} pseudo-resource. */
        Resources effectiveRequest() {
            return job.request().with(Resources.MAX_JOBS, 1);
        }
    }

    private static final class GroupQueue {
        final String group;
        final TreeSet<Entry> active = new TreeSet<>(QUEUE_ORDER);

        GroupQueue(String group) {
            this.group = group;
        }
    }
}
