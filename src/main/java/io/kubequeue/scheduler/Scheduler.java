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
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import io.kubequeue.collections.BoundedMaps;

/**
 * The in-memory queue manager: one queue per quota group, usage per group, and the admission decisions.
 *
 * <p>Every method is synchronized: decisions are cheap in-memory work, and the Kubernetes writes they lead
 * to happen outside the lock. The scheduler never talks to the cluster; it is fed {@link JobObservation}s,
 * {@link QuotaTree}s, {@link PriorityClasses} and usage from outside kube-queue, and returns {@link Admission}s.
 *
 * <h2>How a cycle stays cheap</h2>
 * Each group's pending jobs are split in two sorted sets: <em>active</em> (tried in the next cycle) and
 * <em>backed off</em> (did not fit; also indexed in one global set sorted by retry time). Jobs that can never
 * fit, or have no group, are <em>held</em> apart. A cycle looks only at active jobs (and, after a release under
 * retry on release, the released groups' backed-off jobs), merging one candidate per group in a priority queue,
 * so one decision costs O(log groups + log jobs + path × resources) and never scans a queue
 * ({@link CycleResult#tried()} counts the decisions):
 * <ul>
 *   <li>default policy: a job that does not fit leaves the active set for backoff, so every job is tried at
 *       most once per cycle and the one that fits behind 5,000 that do not is reached in the same cycle, after
 *       5,000 cheap O(log n) moves; those 5,000 are not looked at again until their backoff expires;</li>
 *   <li>blocking queue: a group whose head does not fit leaves the cycle after that one try, so 5,000 jobs
 *       behind it cost nothing, and other groups go on;</li>
 *   <li>retry on release: a release marks the groups of the released tree; the next cycle reads their
 *       backed-off sets in place, merged in queue order with the active heads, and a job that still does not
 *       fit stays where it is: one fit check per backed-off job, no re-sorting, other trees untouched.</li>
 * </ul>
 *
 * <h2>Queue order</h2>
 * Higher priority first, then earlier creation time, then namespace/name (docs/behaviour.md §4). An update to a
 * job keeps its creation time, so it never moves back; a PriorityClass change re-sorts the jobs that use it.
 */
public final class Scheduler {

    /**
     * Admission time format written into {@link AdmissionRecord#admittedAt()}: RFC 3339 in UTC, always with
     * milliseconds (e.g. {@code 2026-11-29T22:04:14.000Z}). Each admission a scheduler decides is at least a
     * millisecond after the one before, so no two share a record.
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
     * @param priority its priority as resolved now (PriorityClass value, explicit value, globalDefault, or 0)
     * @param attempts how many times it was tried and did not fit, or had its admission refused
     * @param retryAt  when a backed-off job is tried again; null otherwise
     * @param hold     why a held job is held; null otherwise
     * @param record   the admission record of an admitted job; null otherwise
     */
    public record JobStatus(JobKey key, State state, String group, Resources request, int priority, int attempts,
                            Instant retryAt, Hold hold, AdmissionRecord record) {
    }

    /**
     * Higher priority first, then earlier creation, then by key. Written out rather than composed from key
     * extractors: every queue insert and removal runs it about log2(n) times, and a job is compared with itself at
     * the end of each removal.
     */
    private static final Comparator<Entry> QUEUE_ORDER = (a, b) -> {
        if (a == b) {
            return 0;
        }
        int byPriority = Integer.compare(b.priority, a.priority);
        if (byPriority != 0) {
            return byPriority;
        }
        int byCreation = a.job.createdAt().compareTo(b.job.createdAt());
        return byCreation != 0 ? byCreation : a.job.key().compareTo(b.job.key());
    };

    private static final Comparator<Entry> BACKOFF_ORDER = Comparator
            .comparing((Entry e) -> e.retryAt)
            .thenComparing(QUEUE_ORDER);

    private final Settings settings;
    private final Clock clock;

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
    private PriorityClasses priorityClasses = PriorityClasses.NONE;
    private final Map<JobKey, Entry> jobs = new HashMap<>();
    private final Map<String, GroupQueue> queues = new HashMap<>();
    private final TreeSet<Entry> backoff = new TreeSet<>(BACKOFF_ORDER);
    private final Map<JobKey, Entry> held = new LinkedHashMap<>();
    /** Admitted requests per node, each job counted at its group and every ancestor. */
    private final Map<String, Resources> usage = new HashMap<>();
    /** The part of {@link #usage} that non-preemptible jobs hold, checked against {@code min}. */
    private final Map<String, Resources> guaranteedUsage = new HashMap<>();
    /**
     * Per node: the admitted jobs charged there whose request cannot be read (see {@link #observeUnreadable}); a
     * node with any, that declares a limit, admits nothing until they end or can be read.
     */
    private final Map<String, TreeSet<JobKey>> unknownUsage = new HashMap<>();
    /** Usage outside kube-queue, per group (ResourceQuota: pods kube-queue did not admit). */
    private final Map<String, Resources> external = new HashMap<>();
    private final List<Hold> newHolds = new ArrayList<>();
    /**
     * uids of jobs seen finished or deleted, newest last, so that a reconcile still holding an older copy cannot
     * bring one back (bounded: a uid is unique, and old copies are seconds old at most).
     */
    private final Map<String, Boolean> ended = BoundedMaps.keepingNewest(ENDED_REMEMBERED);
    private static final int ENDED_REMEMBERED = 50_000;
    /** Retry on release: groups whose backed-off jobs the next cycle tries, in place. */
    private final Set<String> retryAfterRelease = new HashSet<>();
    /** Per group: how many charges moved to outside usage so far; a recount started before a move is stale. */
    private final Map<String, Long> externalRecountTicket = new HashMap<>();
    /**
     * The latest admission time decided here or read on any job's record; the next admission is later, by a
     * millisecond if need be, so no record is ever reused, not even one an earlier leader wrote.
     */
    private Instant lastAdmittedAt;
    /**
     * Jobs withdrawn from the queue because their request could not be read (key to uid, newest last, bounded):
     * they were queued here, so one later seen running without our record is charged as started outside.
     */
    private final Map<JobKey, String> withdrawn = BoundedMaps.keepingNewest(ENDED_REMEMBERED);
    /** Set under the ResourceQuota plugin: see {@link #trackExternalUsage}. */
    private Consumer<String> externalRecount;

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
     *       admitted here and was already seen running, or carries the very admission record we wrote, it was
     *       suspended again: its quota is released and it is queued again. Otherwise (admitted by this cycle,
     *       not seen running yet) the copy is older than our patch, or was written while the patch was on its
     *       way; it is kept, and applied if the admission is handed back (so an edit made meanwhile is never
     *       lost). If our admission's answer was lost, such a copy is the cue to read the job back at once (see
     *       {@link #unconfirmedAdmission}).</li>
     *   <li>{@code ADMITTED}: charged to the group its record names (start-up recovery, or another
     *       replica's admission).</li>
     *   <li>{@code UNSUSPENDED_WITHOUT_RECORD}: ignored unless the job was queued here; then it was started
     *       behind our back and is charged to its group, so quota is never over-admitted.</li>
     *   <li>{@code STARTED_DESPITE_MARK}: as {@code UNSUSPENDED_WITHOUT_RECORD}, and charged even if the job was
     *       never seen before: it carries our mark, yet runs.</li>
     *   <li>{@code FINISHED}: forgotten, its quota released; a finished job is never charged again, and a later
     *       observation of the same uid (a reconcile that read it before it ended) is ignored.</li>
     * </ul>
     */
    public synchronized void observe(JobObservation observation) {
        noteRecord(observation.record());
        if (observation.uid() != null) {
            if (observation.phase() == JobObservation.Phase.FINISHED) {
                ended.put(observation.uid(), Boolean.TRUE);
            } else if (ended.containsKey(observation.uid())) {
                return; // an older copy of a job already seen finished or deleted
            }
        }
        if (observation.phase() == JobObservation.Phase.FINISHED && anotherJob(jobs.get(observation.key()), observation)) {
            return; // an older job of the same name ended; the one we hold is another
        }
        Entry entry = currentEntry(observation);
        observation = asWithdrawnJob(entry, observation);
        if (observation.phase() != JobObservation.Phase.UNSUSPENDED_WITHOUT_RECORD) {
            forgetWithdrawn(observation);
        }
        switch (observation.phase()) {
            case FINISHED -> {
                if (entry != null) {
                    forget(entry);
                }
            }
            case QUEUED -> {
                if (entry == null) {
                    entry = newEntry(observation);
                    activate(entry);
                } else if (entry.state == State.ADMITTED) {
                    if (suspendedAgain(entry, observation)) {
                        queueAgain(entry, observation);
                    } else {
                        // older than our patch, or written while it was on its way (it may still apply on top of
                        // this copy, since it tests the marks, not the version): kept, and applied if the
                        // admission is handed back. A lost answer is settled by a read (unconfirmedAdmission)
                        entry.newest = observation;
                        entry.newestUnreadable = false;
                    }
                } else {
                    update(entry, observation);
                }
            }
            case ADMITTED -> {
                AdmissionRecord record = observation.record();
                if (entry != null && entry.state == State.ADMITTED && entry.chargeUnknown) {
                    uncharge(entry, false); // its request can be read again: charged what it asks from now on
                }
                if (entry == null) {
                    entry = newEntry(observation);
                    charge(entry, record);
                } else if (entry.state != State.ADMITTED) {
                    dequeue(entry);
                    entry.setJob(observation, priorityClasses);
                    charge(entry, record);
                } else if (record.equals(entry.record) && sameCharge(observation, entry.job)) {
                    entry.setJob(keepCreation(observation, entry.job), priorityClasses); // e.g. our admission, seen
                } else {
                    // another admission, or the running job's request changed (e.g. parallelism raised):
                    // charge what it uses now, even above max, so nothing else is admitted into that room
                    uncharge(entry);
                    entry.setJob(keepCreation(observation, entry.job), priorityClasses);
                    charge(entry, record);
                }
                entry.seenRunning = true;
                entry.unconfirmed = false; // it runs: whatever our patch did is settled
            }
            case UNSUSPENDED_WITHOUT_RECORD, STARTED_DESPITE_MARK -> {
                if (entry != null && entry.state == State.ADMITTED && entry.chargeUnknown) {
                    uncharge(entry, false); // its request can be read again: charged as started outside, below
                }
                if (entry == null && observation.phase() == JobObservation.Phase.STARTED_DESPITE_MARK) {
                    entry = newEntry(observation); // in no queue: the branch below charges it
                }
                if (entry != null && entry.state != State.ADMITTED) {
                    dequeue(entry);
                    entry.setJob(observation, priorityClasses);
                    charge(entry, new AdmissionRecord(groupOf(observation), AdmissionRecord.STARTED_OUTSIDE));
                } else if (entry != null) {
                    // started by hand while our admission was in flight: our patch will be refused (its test op
                    // finds no mark), and that refusal must not uncharge a running job, so the charge is re-labelled,
                    // at what the job asks now (it may have been edited since the decision); once seen running
                    // without our record, it is charged what it asks now (more or less)
                    boolean inFlight = !entry.seenRunning && !entry.record.startedOutside();
                    if (inFlight || entry.seenRunning && !sameCharge(observation, entry.job)) {
                        AdmissionRecord record = inFlight
                                ? new AdmissionRecord(entry.record.group(), AdmissionRecord.STARTED_OUTSIDE) : entry.record;
                        uncharge(entry, false);
                        entry.setJob(keepCreation(observation, entry.job), priorityClasses);
                        charge(entry, record);
                    }
                }
                if (entry != null && entry.state == State.ADMITTED) {
                    entry.seenRunning = true;
                    entry.unconfirmed = false;
                }
            }
        }
    }

    /**
     * Replaces the quota groups. Usage is recomputed from the admitted jobs: each stays charged to the group
     * its record names or, if that group no longer exists (renamed, moved), to the group its namespace or
     * label resolves to now, so a renamed group never forgets what runs in it. Admitted jobs are never
     * touched, even when the new tree leaves a group above its max. Every pending job is re-resolved and made
     * active again, so held and backed-off jobs get a fresh chance at once.
     */
    public synchronized void replaceTree(QuotaTree newTree) {
        this.tree = Objects.requireNonNull(newTree, "tree");
        neverFitsMemo.clear();
        shortAt.clear();
        roomGainedAt.clear();
        usage.clear();
        guaranteedUsage.clear();
        unknownUsage.clear();
        List<Entry> pending = new ArrayList<>();
        for (Entry entry : jobs.values()) {
            if (entry.state == State.ADMITTED) {
                entry.chargedGroup = groupToCharge(entry, entry.record);
                addUsage(entry);
            } else {
                pending.add(entry);
            }
        }
        queues.clear();
        backoff.clear();
        held.clear();
        retryAfterRelease.clear();
        for (Entry entry : pending) {
            entry.attempts = 0;
            entry.retryAt = null;
            activate(entry);
        }
    }

    /**
     * Replaces the PriorityClasses every job's priority is resolved with; pending jobs whose priority changes
     * move to their new place at once (a class created after its jobs re-orders them). O(jobs): classes
     * change rarely.
     */
    public synchronized void replacePriorityClasses(PriorityClasses classes) {
        this.priorityClasses = Objects.requireNonNull(classes, "classes");
        for (Entry entry : jobs.values()) {
            int resolved = classes.resolve(entry.job.priority());
            if (resolved != entry.priority) {
                reprioritise(entry, resolved);
            }
        }
    }

    /**
     * Sets what a group uses outside kube-queue (ResourceQuota: {@code status.used} minus the pods of jobs
     * kube-queue admitted); checked with the group's own max only, on top of what kube-queue admitted there.
     * A drop in any resource counts as a release.
     *
     * @param group the group (under the ResourceQuota plugin, the namespace)
     * @param used  millicores, bytes, counts; {@link Resources#NONE} when nothing is used outside
     */
    public synchronized void setExternalUsage(String group, Resources used) {
        setExternalUsage(group, used, externalRecountTicket(group));
    }

    /**
     * The ticket a recount of the group's outside usage takes before it reads the cluster; see
     * {@link #setExternalUsage(String, Resources, long)}.
     */
    public synchronized long externalRecountTicket(String group) {
        return externalRecountTicket.getOrDefault(group, 0L);
    }

    /**
     * As {@link #setExternalUsage(String, Resources)}, but ignored if a job's charge moved to the group's outside
     * usage after the recount took its {@code ticket}: that recount may have read the job as still admitted,
     * and a newer one is already on its way.
     */
    public synchronized void setExternalUsage(String group, Resources used, long ticket) {
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
                released(group);
                return;
            }
        }
    }

    /**
     * Turns on the bookkeeping of usage outside kube-queue (ResourceQuota plugin). When a job stops being
     * charged (finished, deleted, suspended again, refused) its pods may still run, and they are not counted
     * outside kube-queue until the quota source recounts them. So its charge moves to the group's outside usage
     * at once, and {@code recount} is told the group, so that it recounts and calls {@link #setExternalUsage}
     * with the real figure (a drop there is a release). Quota is therefore never under-counted in between.
     *
     * @param recount called with the group while the scheduler's lock is held: it must only hand the work to
     *                another thread, never call back into the scheduler itself
     */
    public synchronized void trackExternalUsage(Consumer<String> recount) {
        this.externalRecount = Objects.requireNonNull(recount, "recount");
    }

    /**
     * Runs one scheduling cycle: moves expired backoffs back to their queues, then tries jobs in queue order
     * across all groups (see the class comment for what each policy does with a job that does not fit). Every
     * admission returned is already charged.
     */
    public synchronized CycleResult schedule() {
        Instant now = clock.instant();
        List<Admission> admissions = new ArrayList<>();
        List<Entry> backedOffNow = new ArrayList<>();
        List<CycleResult.Unschedulable> firstFailures = new ArrayList<>();
        // requests found not to fit, per group, in this cycle: usage only grows within a cycle (a release needs
        // this lock), so they cannot fit later in it either; the other jobs of the same shape skip the fit check,
        // which keeps a retry-on-release cycle over thousands of backed-off jobs cheap
        Set<FitShape> notFittingNow = new HashSet<>();
        int stillShort = endBackoffs(now, notFittingNow);
        int tried = stillShort;
        int notFitting = stillShort;
        int heldInCycle = 0;
        PriorityQueue<Candidate> heads = new PriorityQueue<>();
        for (GroupQueue queue : queues.values()) {
            if (mayTry(queue)) {
                heads.add(new Candidate(queue, queue.active.first(), null));
            }
            if (retryAfterRelease.contains(queue.group) && !queue.backedOff.isEmpty()) {
                // one cursor per shape: a shape that does not fit now is not walked at all (usage only grows within
                // a cycle), so a release costs a few checks per group, not one per backed-off job
                for (Shape shape : List.copyOf(queue.backedOff.shapes())) {
                    FitShape fitShape = new FitShape(queue.group, shape.request(), shape.preemptible());
                    if (shortNow(fitShape, notFittingNow)) {
                        continue;
                    }
                    Iterator<Entry> cursor = queue.backedOff.cursor(shape);
                    heads.add(new Candidate(queue, cursor.next(), cursor));
                }
            }
        }
        retryAfterRelease.clear();
        while (!heads.isEmpty()) {
            Candidate candidate = heads.poll();
            GroupQueue queue = candidate.queue;
            Entry entry = candidate.entry;
            tried++;
            boolean fromBackoff = candidate.cursor != null;
            if (fromBackoff && entry.refused) {
                tried--; // a refused admission waits out its backoff: not tried, not counted
                if (candidate.cursor.hasNext()) {
                    heads.add(new Candidate(queue, candidate.cursor.next(), candidate.cursor));
                }
                continue;
            }
            if (fromBackoff) {
                // retried at once after a release, read in place: a job that still does not fit stays where it
                // is (its backoff timer runs on); the jobs behind it on its cursor have its shape, so they would
                // not fit either: the cursor ends there
                FitShape shape = new FitShape(queue.group, entry.effectiveRequest(), entry.job.preemptible());
                String neverFits = notFittingNow.contains(shape) ? null : neverFits(shape);
                boolean walkOn = true;
                if (neverFits != null || !shortNow(shape, notFittingNow)) {
                    candidate.cursor.remove();
                    backoff.remove(entry);
                    entry.retryAt = null;
                    if (neverFits != null) {
                        hold(entry, Hold.Reason.NEVER_FITS, neverFits);
                        heldInCycle++;
                    } else {
                        admissions.add(admit(queue.group, entry, now));
                    }
                } else {
                    entry.attempts++;
                    notFitting++;
                    walkOn = false;
                }
                if (walkOn && candidate.cursor.hasNext()) {
                    heads.add(new Candidate(queue, candidate.cursor.next(), candidate.cursor));
                }
            } else {
                queue.active.pollFirst();
                boolean blocked = false;
                FitShape shape = new FitShape(queue.group, entry.effectiveRequest(), entry.job.preemptible());
                String neverFits = notFittingNow.contains(shape) ? null : neverFits(shape);
                if (neverFits != null) {
                    hold(entry, Hold.Reason.NEVER_FITS, neverFits);
                    heldInCycle++;
                } else if (!shortNow(shape, notFittingNow)) {
                    admissions.add(admit(queue.group, entry, now));
                } else {
                    entry.attempts++;
                    notFitting++;
                    if (entry.attempts == 1) {
                        firstFailures.add(new CycleResult.Unschedulable(entry.job.key(), queue.group, blocker(entry)));
                    }
                    if (settings.policy() == SchedulingPolicy.BLOCKING_QUEUE) {
                        queue.active.add(entry); // stays the head; the whole group waits for the next change
                        blocked = true;
                    } else {
                        entry.state = State.BACKOFF;
                        backedOffNow.add(entry); // joins the backed-off set after the cycle, so no cursor meets it
                    }
                }
                if (!blocked && mayTry(queue)) {
                    heads.add(new Candidate(queue, queue.active.first(), null));
                }
            }
        }
        for (Entry entry : backedOffNow) {
            backOff(entry, now.plus(backoffFor(entry.attempts)));
        }
        for (GroupQueue queue : List.copyOf(queues.values())) {
            dropIfEmpty(queue);
        }
        List<Hold> holds = List.copyOf(newHolds);
        newHolds.clear();
        return new CycleResult(admissions, holds, tried, firstFailures, notFitting, heldInCycle);
    }

    /**
     * Ends the backoffs that expired by {@code now}: each job goes back to its group's active queue, to be tried in
     * this cycle in queue order. A job whose shape does not fit at the start of the cycle would be tried and fail
     * (usage only grows within a cycle), so that try is made here: it counts as tried and not fitting, and it waits
     * again, doubled, without leaving its group's backed-off set. Under load most expired jobs are of this kind, and
     * moving each one out and back in was a fifth of a cycle's cost. Not under the blocking queue, where a job that
     * does not fit stays its group's head.
     *
     * @return how many jobs were tried here
     */
    private int endBackoffs(Instant now, Set<FitShape> notFittingNow) {
        List<Entry> waitAgain = new ArrayList<>();
        Set<FitShape> mayFit = new HashSet<>();
        while (!backoff.isEmpty() && !backoff.first().retryAt.isAfter(now)) {
            Entry entry = backoff.pollFirst();
            entry.refused = false;
            if (settings.policy() != SchedulingPolicy.BLOCKING_QUEUE && shortAtStart(entry, notFittingNow, mayFit)) {
                // a backed-off job has failed before (every way into backoff counts an attempt), so this is never
                // its first failure: no Pending event
                entry.attempts++;
                waitAgain.add(entry);
                continue;
            }
            GroupQueue queue = queues.get(entry.group);
            queue.backedOff.remove(entry);
            entry.retryAt = null;
            entry.state = State.ACTIVE;
            queue.active.add(entry);
        }
        for (Entry entry : waitAgain) {
            entry.retryAt = now.plus(backoffFor(entry.attempts));
            backoff.add(entry);
        }
        return waitAgain.size();
    }

    /**
     * Whether the job's shape does not fit now (and can fit some day: a shape that never fits is left to the cycle,
     * which holds the job), as {@link #shortNow}, which remembers only the shapes that are short: {@code mayFit}
     * keeps the others for the rest of this pass, so each expired job of such a shape is not checked again.
     */
    private boolean shortAtStart(Entry entry, Set<FitShape> notFittingNow, Set<FitShape> mayFit) {
        FitShape shape = new FitShape(entry.group, entry.effectiveRequest(), entry.job.preemptible());
        if (mayFit.contains(shape)) {
            return false;
        }
        if (shortNow(shape, notFittingNow)) {
            return true;
        }
        mayFit.add(shape);
        return false;
    }

    /**
     * Whether the shape does not fit now and can fit some day (a shape that never fits is left to the caller,
     * which holds its jobs). A shape found short is remembered for the cycle ({@code notFittingNow}) and, with the
     * node it is short at, in {@link #shortAt}, which answers without a walk up the tree until that node gains room.
     */
    private boolean shortNow(FitShape shape, Set<FitShape> notFittingNow) {
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

    /** Where a shape was found short, and the {@link #roomClock} then. */
    private record ShortAt(String node, long roomClock) {
    }

    /** Records that the node may have room it did not have: the shapes short there are checked again. */
    private void gainedRoom(String node) {
        roomGainedAt.put(node, ++roomClock);
    }

    /** A job's shape as far as fitting goes: its group, its request (with the job count), its preemptibility. */
    private record FitShape(String group, Resources request, boolean preemptible) {
    }

    private Admission admit(String group, Entry entry, Instant now) {
        entry.state = null;
        // every admission of this process gets its own record, even within one millisecond: a record names one
        // decision, so a late answer to an old one (a deleted namesake's) can never be mistaken for a newer one
        Instant at = now.truncatedTo(ChronoUnit.MILLIS);
        if (lastAdmittedAt != null && !at.isAfter(lastAdmittedAt)) {
            at = lastAdmittedAt.plusMillis(1);
        }
        lastAdmittedAt = at;
        AdmissionRecord record = new AdmissionRecord(group, ADMITTED_AT.format(at));
        charge(entry, record);
        return new Admission(entry.job.key(), entry.job.uid(), record, entry.job.request(),
                Duration.between(entry.queuedAt, now).toMillis());
    }

    /** The next job a cycle may try in one group: its active head, or the next backed-off job to retry. */
    private record Candidate(GroupQueue queue, Entry entry, Iterator<Entry> cursor) implements Comparable<Candidate> {
        @Override
        public int compareTo(Candidate other) {
            int byJob = QUEUE_ORDER.compare(entry, other.entry);
            if (byJob != 0) {
                return byJob;
            }
            int byGroup = queue.group.compareTo(other.queue.group);
            return byGroup != 0 ? byGroup : Boolean.compare(cursor != null, other.cursor != null);
        }
    }

    /**
     * Hands back an admission the cluster refused (the {@code test} op failed, or the job is gone): the charge
     * is undone and the job goes to backoff, and is not retried before it expires, even by a release (else a
     * refusal that repeats, say from a validating policy, would loop). Under the blocking queue it still blocks
     * its group, since it stays ahead of the jobs behind it. The room it frees is a release for the others.
     * Ignored if the job has since moved on (another admission record).
     */
    public synchronized void admissionFailed(JobKey key, AdmissionRecord record) {
        Entry entry = admittedAs(key, record);
        if (entry == null) {
            return;
        }
        String chargedGroup = entry.chargedGroup;
        JobObservation newest = entry.newest;
        boolean newestUnreadable = entry.newestUnreadable;
        uncharge(entry, false); // nothing ran: no pods to keep counting
        released(chargedGroup); // the room is free for the others; the refused job itself waits out its backoff
        if (newestUnreadable) {
            withdraw(entry); // its newest copy's request cannot be read: out of the queue until it is fixed
            return;
        }
        if (newest != null) {
            entry.setJob(keepCreation(newest, entry.job), priorityClasses); // an edit made meanwhile wins
        }
        entry.attempts++;
        Optional<QuotaNode> group = tree.groupFor(key.namespace(), entry.job.quotaName());
        if (group.isEmpty()) {
            activate(entry); // holds it, saying why
            return;
        }
        entry.group = group.get().name();
        entry.refused = true;
        backOff(entry, clock.instant().plus(backoffFor(entry.attempts)));
    }

    /**
     * Our admission found the job gone (404): it is forgotten and its charge released. Only the job of that
     * admission is touched, not a namesake created since.
     */
    public synchronized void admissionTargetGone(JobKey key, AdmissionRecord record) {
        Entry entry = admittedAs(key, record);
        if (entry != null) {
            forget(entry);
        }
    }

    /**
     * Our admission was refused because the job was started by hand meanwhile (its mark is gone): the charge is
     * kept, re-labelled as started outside kube-queue, so the refusal does not free room the job is using.
     *
     * @param resourceVersion the version read, which showed the job running; a later suspended copy is a
     *                        re-suspension
     * @return the record now held, to write on the job; empty if the job has moved on
     */
    public synchronized Optional<AdmissionRecord> admissionOverridden(JobKey key, AdmissionRecord record,
                                                                   String resourceVersion) {
        Entry entry = admittedAs(key, record);
        if (entry == null) {
            return Optional.empty();
        }
        entry.record = new AdmissionRecord(record.group(), AdmissionRecord.STARTED_OUTSIDE);
        entry.confirmedVersion = resourceVersion; // seen running at that version: a newer suspended copy re-suspends
        entry.unconfirmed = false;
        AdmissionRecord kept = entry.record;
        settleNewest(entry, resourceVersion);
        return entry.state == State.ADMITTED ? Optional.of(kept) : Optional.empty(); // suspended again since
    }

    /**
     * Our admission patch was applied: the API server answered with the job at {@code resourceVersion}. A later
     * version of the job that carries a suspend mark again is a re-suspension, even if the running state in
     * between was never observed (an informer may pass straight from the copy before our patch to a newer one),
     * and even if that version reached the scheduler before this answer did. Ignored if the job has moved on to
     * another admission record.
     *
     * @param resourceVersion the {@code metadata.resourceVersion} of the patch's answer
     */
    public synchronized void admissionConfirmed(JobKey key, AdmissionRecord record, String resourceVersion) {
        Entry entry = admittedAs(key, record);
        if (entry != null) {
            entry.confirmedVersion = resourceVersion;
            entry.unconfirmed = false;
            settleNewest(entry, resourceVersion);
        }
    }

    /**
     * Our admission's answer was lost (5xx, timeout) and the job could not be read back: whether it applied is
     * unknown. The charge stays (quota is never over-admitted meanwhile) until the admission side reads the job
     * again (on a backoff, and at once on each new suspended copy: {@link #unconfirmedAdmission}), or its running
     * copy settles it as applied. Ignored if the job has moved on.
     */
    public synchronized void admissionUnconfirmed(JobKey key, AdmissionRecord record) {
        Entry entry = admittedAs(key, record);
        if (entry != null && !entry.seenRunning
                && entry.confirmedVersion == null) {
            entry.unconfirmed = true;
        }
    }

    /**
     * The admission of this job whose answer was lost, if any (see {@link #admissionUnconfirmed}). A new copy of
     * the job, still suspended and without our record, is the cue to read it back now: the copy alone cannot
     * say "not applied", since it may have been written before our patch landed on top of it (the patch tests
     * the marks, not the version), and releasing the room on it could over-admit; a read after the lost answer
     * sees every write that answer could have made.
     *
     * @return the admission as decided (uid, record, charged request), to read back
     */
    public synchronized Optional<Admission> unconfirmedAdmission(JobKey key) {
        Entry entry = jobs.get(key);
        if (entry == null || entry.state != State.ADMITTED || !entry.unconfirmed) {
            return Optional.empty();
        }
        return Optional.of(new Admission(key, entry.job.uid(), entry.record, entry.job.request(), 0));
    }

    /**
     * Whether this admission's outcome is still unknown (see {@link #admissionUnconfirmed}): the admission side
     * keeps re-reading the job while it is, and stops once anything settled it.
     */
    public synchronized boolean admissionUnsettled(JobKey key, AdmissionRecord record) {
        Entry entry = admittedAs(key, record);
        return entry != null && entry.unconfirmed;
    }

    /**
     * Our admission was refused, and reading the job back shows it admitted by another replica (a leader change
     * mid-stream): the charge is moved to the record found, at once, rather than handed back until the informer
     * catches up (which would free room the job uses). Ignored if the job has moved on.
     *
     * @param ours            the record our admission would have written
     * @param found           the admission record read on the job
     * @param resourceVersion the version read; an older copy seen later is not a re-suspension
     */
    public synchronized void admissionTakenOver(JobKey key, AdmissionRecord ours, AdmissionRecord found,
                                                String resourceVersion) {
        Entry entry = admittedAs(key, ours);
        if (entry == null) {
            return;
        }
        String before = entry.chargedGroup;
        JobObservation newest = entry.newest;
        boolean newestUnreadable = entry.newestUnreadable;
        uncharge(entry, false);
        charge(entry, found);
        entry.confirmedVersion = resourceVersion;
        if (!Objects.equals(before, entry.chargedGroup)) {
            released(before);
        }
        entry.newest = newest;
        entry.newestUnreadable = newestUnreadable;
        settleNewest(entry, resourceVersion);
    }

    /** What {@link #observeUnreadable} did with a job whose request cannot be read. */
    public enum Unreadable {
        /** Not managed by kube-queue: nothing done. */
        IGNORED,
        /** Suspended: out of the queue until it can be read (it stays suspended, and is read again on its next change). */
        WITHDRAWN,
        /** Admitted or running: it stays charged at its last known request (see {@link JobStatus#request()}). */
        KEPT,
        /** Running, with no known request: charged one job, and its groups admit nothing until it ends or is fixed. */
        HOLDS_GROUP
    }

    /**
     * A job whose request cannot be read (docs/behaviour.md §2). A suspended one leaves the queue; an admitted or
     * running one is never uncharged for it: it keeps its last known charge, or, if none is known (seen first this
     * way, e.g. after a restart), it is charged as unknown, and every group on its path that declares a limit
     * admits nothing more until it ends or can be read (its real use is unknown, so any admission could exceed).
     *
     * @param observation the job as seen, its request ignored ({@link Resources#NONE})
     * @return what was done, for the Warning event
     */
    public synchronized Unreadable observeUnreadable(JobObservation observation) {
        noteRecord(observation.record());
        if (observation.uid() != null && ended.containsKey(observation.uid())) {
            return Unreadable.IGNORED;
        }
        if (observation.phase() == JobObservation.Phase.FINISHED) {
            throw new IllegalArgumentException("a finished job has no request to read: " + observation.key());
        }
        Entry entry = currentEntry(observation);
        JobObservation.Phase phase = asWithdrawnJob(entry, observation).phase();
        if (phase == JobObservation.Phase.QUEUED) {
            if (entry != null && entry.state == State.ADMITTED && !suspendedAgain(entry, observation)) {
                // our admission is on its way and settles this; if it is handed back, the job is withdrawn
                entry.newest = observation;
                entry.newestUnreadable = true;
                return Unreadable.KEPT;
            }
            if (entry != null) {
                withdraw(entry);
            } else {
                withdrawn.put(observation.key(), observation.uid() == null ? "" : observation.uid());
            }
            return Unreadable.WITHDRAWN;
        }
        forgetWithdrawn(observation);
        if (entry != null && entry.state == State.ADMITTED) {
            if (phase != JobObservation.Phase.ADMITTED && !entry.seenRunning && !entry.record.startedOutside()) {
                // started by hand while our admission was on its way: a refusal must not uncharge it (see observe)
                entry.record = new AdmissionRecord(entry.record.group(), AdmissionRecord.STARTED_OUTSIDE);
            }
            entry.seenRunning = true;
            entry.unconfirmed = false;
            return entry.chargeUnknown ? Unreadable.HOLDS_GROUP : Unreadable.KEPT;
        }
        if (entry == null && phase == JobObservation.Phase.UNSUSPENDED_WITHOUT_RECORD) {
            return Unreadable.IGNORED;
        }
        if (entry == null) {
            entry = newEntry(observation);
        } else {
            dequeue(entry);
            entry.setJob(keepCreation(observation, entry.job), priorityClasses);
        }
        AdmissionRecord record = phase == JobObservation.Phase.ADMITTED ? observation.record()
                : new AdmissionRecord(groupOf(observation), AdmissionRecord.STARTED_OUTSIDE);
        charge(entry, record, true);
        entry.seenRunning = true;
        return Unreadable.HOLDS_GROUP;
    }

    /**
     * Whether {@code version} is newer than {@code than}. Kubernetes resourceVersions are opaque strings; they are
     * compared only when both are decimal numbers (as etcd writes them), and otherwise never count as newer.
     */
    private static boolean newer(String version, String than) {
        if (version == null || than == null) {
            return false;
        }
        try {
            return Long.parseLong(version) > Long.parseLong(than);
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /**
     * The job was seen running at {@code version} (our patch's answer, or a read): a suspended copy kept while the
     * admission was on its way that is newer than that is a re-suspension, which arrived first. It releases the
     * charge and queues the job again, or, if that copy's request cannot be read, withdraws it. An older copy is
     * dropped: the running copy follows.
     */
    private void settleNewest(Entry entry, String version) {
        JobObservation newest = entry.newest;
        boolean unreadable = entry.newestUnreadable;
        entry.newest = null;
        entry.newestUnreadable = false;
        if (newest == null || !newer(newest.resourceVersion(), version)) {
            return;
        }
        if (unreadable) {
            uncharge(entry);
            withdraw(entry);
            return;
        }
        queueAgain(entry, newest);
    }

    /** An admitted job was suspended again, as {@code copy} shows: its quota goes back, and it queues again. */
    private void queueAgain(Entry entry, JobObservation copy) {
        uncharge(entry);
        entry.setJob(keepCreation(copy, entry.job), priorityClasses);
        entry.attempts = 0;
        entry.queuedAt = clock.instant(); // its wait starts again (metrics, events)
        activate(entry);
    }

    /** Records from further ahead than this are not taken as a clock to move past (hand-written, or broken). */
    private static final Duration RECORD_CLOCK_SKEW = Duration.ofHours(1);

    /**
     * Moves {@link #lastAdmittedAt} past a record's time, so no later admission here can write the same record.
     * A record more than {@link #RECORD_CLOCK_SKEW} in the future is ignored: annotations can be written by anyone,
     * and one at the end of time must not stop admissions.
     */
    private void noteRecord(AdmissionRecord record) {
        if (record == null || record.startedOutside() || record.admittedAt() == null) {
            return;
        }
        try {
            Instant at = Instant.parse(record.admittedAt());
            if (at.isAfter(clock.instant().plus(RECORD_CLOCK_SKEW))) {
                return;
            }
            if (lastAdmittedAt == null || at.isAfter(lastAdmittedAt)) {
                lastAdmittedAt = at;
            }
        } catch (java.time.format.DateTimeParseException e) {
            // written by hand or by another tool: it cannot collide with ours
        }
    }

    private boolean wasWithdrawn(JobObservation observation) {
        String uid = withdrawn.get(observation.key());
        return uid != null && (uid.isEmpty() || observation.uid() == null || uid.equals(observation.uid()));
    }

    /** Whether the entry held under this key is of another job (an older or newer object of the same name). */
    private static boolean anotherJob(Entry entry, JobObservation observation) {
        return entry != null && observation.uid() != null && entry.job.uid() != null
                && !observation.uid().equals(entry.job.uid());
    }

    /**
     * The entry of this very job, or null: one held for another object of the same name is forgotten (deleted and
     * created again, whose delete may never be seen on its own), its quota released.
     */
    private Entry currentEntry(JobObservation observation) {
        Entry entry = jobs.get(observation.key());
        if (anotherJob(entry, observation)) {
            forget(entry);
            return null;
        }
        return entry;
    }

    /** A job not held but withdrawn earlier, now running without our record, was queued here: managed as such. */
    private JobObservation asWithdrawnJob(Entry entry, JobObservation observation) {
        return entry == null && observation.phase() == JobObservation.Phase.UNSUSPENDED_WITHOUT_RECORD
                && wasWithdrawn(observation) ? observation.inPhase(JobObservation.Phase.STARTED_DESPITE_MARK)
                : observation;
    }

    /**
     * Whether a suspended copy of an admitted job means it was suspended again: it was seen running since its
     * charge, or the copy carries the very record we wrote, or is newer than what our patch produced. (Events of
     * one object arrive in order, so nothing older can follow a running state.)
     */
    private static boolean suspendedAgain(Entry entry, JobObservation copy) {
        return entry.seenRunning || copy.record() != null && copy.record().equals(entry.record)
                || newer(copy.resourceVersion(), entry.confirmedVersion);
    }

    /** The job is seen otherwise than withdrawn; the end of an older namesake leaves a withdrawn job remembered. */
    private void forgetWithdrawn(JobObservation observation) {
        String uid = withdrawn.get(observation.key());
        boolean olderNamesakeEnded = observation.phase() == JobObservation.Phase.FINISHED && uid != null
                && !uid.isEmpty() && observation.uid() != null && !uid.equals(observation.uid());
        if (uid != null && !olderNamesakeEnded) {
            withdrawn.remove(observation.key());
        }
    }

    private void withdraw(Entry entry) {
        forget(entry);
        withdrawn.put(entry.job.key(), entry.job.uid() == null ? "" : entry.job.uid());
    }

    /** The job, if it is admitted under that very record (an answer about another admission finds none). */
    private Entry admittedAs(JobKey key, AdmissionRecord record) {
        Entry entry = jobs.get(key);
        return entry != null && entry.state == State.ADMITTED && record.equals(entry.record) ? entry : null;
    }

    /** When the next backoff expires, so the caller knows when to run the next cycle without a new event. */
    public synchronized Optional<Instant> nextRetry() {
        return backoff.isEmpty() ? Optional.empty() : Optional.of(backoff.first().retryAt);
    }

    /**
     * Whether the scheduler manages this job: it holds it, or withdrew it from the queue because its request could
     * not be read (so that it is charged if it is then started by hand).
     */
    public synchronized boolean manages(JobKey key) {
        return jobs.containsKey(key) || withdrawn.containsKey(key);
    }

    /** One job's state, or empty if the scheduler does not know it (never managed, or finished). */
    public synchronized Optional<JobStatus> status(JobKey key) {
        Entry e = jobs.get(key);
        if (e == null) {
            return Optional.empty();
        }
        String group = e.state == State.ADMITTED ? e.chargedGroup : e.group;
        return Optional.of(new JobStatus(key, e.state, group, e.job.request(), e.priority, e.attempts, e.retryAt,
                e.hold, e.record));
    }

    /** The usage of one group by admitted jobs (including its descendants'); {@link Resources#NONE} if none. */
    public synchronized Resources usage(String group) {
        return usage.getOrDefault(group, Resources.NONE);
    }

    /** The part of {@link #usage} held by non-preemptible jobs, which {@code min} limits. */
    public synchronized Resources guaranteedUsage(String group) {
        return guaranteedUsage.getOrDefault(group, Resources.NONE);
    }

    /** What the group uses outside kube-queue (see {@link #setExternalUsage}). */
    public synchronized Resources externalUsage(String group) {
        return external.getOrDefault(group, Resources.NONE);
    }

    /** The quota groups in force. */
    public synchronized QuotaTree tree() {
        return tree;
    }

    /** The PriorityClasses in force. */
    public synchronized PriorityClasses priorityClasses() {
        return priorityClasses;
    }

    /**
     * One quota group as the scheduler sees it now.
     *
     * @param name     the group
     * @param parent   its parent group, or null at a root
     * @param min      declared min (millicores, bytes, counts)
     * @param max      declared max; a resource absent is not limited here
     * @param used     what kube-queue's admitted jobs use here (descendants included)
     * @param outside  what is used here outside kube-queue (ResourceQuota plugin)
     * @param pending  pending jobs queued in this group: {@code active + backoff + held}
     * @param admitted admitted jobs charged to this group itself
     * @param active   pending jobs the next cycle tries
     * @param backoff  pending jobs backing off
     * @param held     pending jobs held until the quota changes (they can never fit now)
     * @param oldestPendingSince when the longest-waiting pending job was first seen queued; null if none waits
     * @param namespaces the namespaces whose jobs queue in this group itself (not its descendants); for a group no
     *                   quota object declares (ResourceQuota plugin: a namespace without one), its own name
     */
    public record GroupView(String name, String parent, Resources min, Resources max, Resources used, Resources outside,
                            int pending, int admitted, int active, int backoff, int held, Instant oldestPendingSince,
                            List<String> namespaces) {
    }

    /**
     * A pending job and why it is not admitted yet.
     *
     * @param status   the job's state
     * @param position its place in its group's queue, from 1 (0 for a job in no group)
     * @param reason   why it is not admitted, with the numbers (the resource, the node, request, used, limit)
     */
    public record PendingView(JobStatus status, int position, String reason) {
    }

    /**
     * Every declared group and every group that has jobs, sorted by name. O(groups + jobs): for an API call, not
     * for the decision path.
     */
    public synchronized List<GroupView> groups() {
        // one pass over every job, refreshed each second for the metrics: a hash lookup per job, sorted at the end
        Map<String, GroupCounts> counts = new HashMap<>();
        for (QuotaNode node : tree.nodes()) {
            counts.put(node.name(), new GroupCounts());
        }
        for (Entry e : jobs.values()) {
            String group = e.state == State.ADMITTED ? e.chargedGroup : e.group;
            if (group == null || e.state == State.HELD && e.hold.kind() != Hold.Reason.NEVER_FITS) {
                continue;
            }
            GroupCounts n = counts.computeIfAbsent(group, g -> new GroupCounts());
            n.byState[e.state.ordinal()]++;
            if (e.state != State.ADMITTED && (n.oldest == null || e.queuedAt.isBefore(n.oldest))) {
                n.oldest = e.queuedAt;
            }
        }
        List<GroupView> views = new ArrayList<>();
        for (String name : new TreeSet<>(counts.keySet())) {
            GroupCounts n = counts.get(name);
            int active = n.byState[State.ACTIVE.ordinal()];
            int backedOff = n.byState[State.BACKOFF.ordinal()];
            int held = n.byState[State.HELD.ordinal()];
            QuotaNode node = tree.node(name).orElse(new QuotaNode(name, null, List.of(name), null, null));
            views.add(new GroupView(name, node.parentName(), node.min(), node.max(), usage(name), externalUsage(name),
                    active + backedOff + held, n.byState[State.ADMITTED.ordinal()], active, backedOff, held, n.oldest,
                    node.namespaces()));
        }
        return views;
    }

    /** One group's jobs per {@link State}, and its oldest pending job's queue time, for {@link #groups}. */
    private static final class GroupCounts {
        final int[] byState = new int[State.values().length];
        Instant oldest;
    }

    /**
     * The quota groups whose head — the first pending job in queue order, held jobs aside, backed-off ones
     * included — fits now. Such a head is admitted by the next cycle or, backed off, when its backoff ends (at most
     * {@code kube-queue.backoff.max}); a group that stays in this set for minutes shows admissions that do not happen
     * (metric {@code kube_queue_head_fits}). O(groups × path).
     */
    public synchronized Set<String> groupsWhoseHeadFits() {
        Set<String> fitting = new TreeSet<>();
        for (GroupQueue queue : queues.values()) {
            Entry head = queue.active.isEmpty() ? null : queue.active.first();
            if (!queue.backedOff.isEmpty()
                    && (head == null || QUEUE_ORDER.compare(queue.backedOff.first(), head) < 0)) {
                head = queue.backedOff.first();
            }
            if (head != null && fits(queue.group, head)) {
                fitting.add(queue.group);
            }
        }
        return fitting;
    }

    /**
     * The pending jobs of one group in queue order, each with its position and the reason it waits; jobs held as
     * never fitting come last. O(jobs of the group × path): for an API call, not for the decision path.
     */
    public synchronized List<PendingView> pending(String group) {
        List<Entry> waiting = new ArrayList<>();
        GroupQueue queue = queues.get(group);
        if (queue != null) {
            waiting.addAll(queue.active);
            queue.backedOff.forEach(waiting::add);
            waiting.sort(QUEUE_ORDER);
        }
        held.values().stream().filter(e -> group.equals(e.group) && e.hold.kind() == Hold.Reason.NEVER_FITS)
                .sorted(QUEUE_ORDER).forEach(waiting::add);
        List<PendingView> views = new ArrayList<>(waiting.size());
        Entry head = waiting.isEmpty() ? null : waiting.get(0);
        for (int i = 0; i < waiting.size(); i++) {
            Entry e = waiting.get(i);
            views.add(new PendingView(status(e.job.key()).orElseThrow(), i + 1, reason(e, head)));
        }
        return views;
    }

    /**
     * Every job of that namespace and name (one per kind), with its position and reason if it is pending.
     */
    public synchronized List<PendingView> find(String namespace, String name) {
        List<PendingView> found = new ArrayList<>();
        for (Entry e : jobs.values()) {
            if (e.job.key().namespace().equals(namespace) && e.job.key().name().equals(name)) {
                if (e.state == State.ADMITTED) {
                    found.add(new PendingView(status(e.job.key()).orElseThrow(), 0,
                            "admitted into quota group " + e.chargedGroup));
                } else if (e.state == State.HELD && e.hold.kind() == Hold.Reason.NO_QUOTA_GROUP) {
                    found.add(new PendingView(status(e.job.key()).orElseThrow(), 0, e.hold.reason()));
                } else {
                    found.add(new PendingView(status(e.job.key()).orElseThrow(), positionOf(e), reason(e, headOf(e.group))));
                }
            }
        }
        found.sort(Comparator.comparing(v -> v.status().key()));
        return found;
    }

    /** A pending job's place in its group, as {@link #pending} numbers it, without listing the group. */
    private int positionOf(Entry e) {
        GroupQueue queue = queues.get(e.group);
        if (e.state == State.HELD) { // never fits: after every queued job, in queue order among the held
            long heldBefore = held.values().stream().filter(h -> e.group.equals(h.group)
                    && h.hold.kind() == Hold.Reason.NEVER_FITS && QUEUE_ORDER.compare(h, e) < 0).count();
            return (queue == null ? 0 : queue.active.size() + queue.backedOff.size()) + (int) heldBefore + 1;
        }
        return queue.active.headSet(e).size() + queue.backedOff.headSet(e).size() + 1;
    }

    /** The first queued job of a group (active or backing off), or null. */
    private Entry headOf(String group) {
        GroupQueue queue = queues.get(group);
        if (queue == null || queue.active.isEmpty() && queue.backedOff.isEmpty()) {
            return null;
        }
        if (queue.active.isEmpty() || queue.backedOff.isEmpty()) {
            return queue.active.isEmpty() ? queue.backedOff.first() : queue.active.first();
        }
        return QUEUE_ORDER.compare(queue.active.first(), queue.backedOff.first()) < 0
                ? queue.active.first() : queue.backedOff.first();
    }

    /**
     * What would happen to a job submitted now, without queueing it.
     *
     * @param group    the quota group it would queue in; null if none
     * @param priority its priority as resolved now
     * @param fitsNow  whether its request fits its group and every ancestor now
     * @param position where it would stand in its group's queue, from 1 (0 if it has no group or never fits)
     * @param reason   why it would wait, with the numbers (as in {@link #pending}); "fits now" if it would not
     */
    public record DryRun(String group, int priority, boolean fitsNow, int position, String reason) {
    }

    /** Evaluates a job as if it were queued now (see {@link DryRun}); the scheduler is not changed. */
    public synchronized DryRun dryRun(JobObservation job) {
        Entry e = new Entry(job, clock.instant(), priorityClasses.resolve(job.priority()));
        Optional<QuotaNode> node = tree.groupFor(job.key().namespace(), job.quotaName());
        if (node.isEmpty()) {
            return new DryRun(null, e.priority, false, 0, noGroupReason(job));
        }
        e.group = node.get().name();
        String neverFits = neverFits(e.group, e);
        if (neverFits != null) {
            return new DryRun(e.group, e.priority, false, 0, neverFits + "; it could never be admitted");
        }
        int ahead = 0;
        GroupQueue queue = queues.get(e.group);
        if (queue != null) {
            ahead = queue.active.headSet(e).size() + queue.backedOff.headSet(e).size();
        }
        boolean fits = fits(e.group, e);
        String blocker = blocker(e);
        String reason = blocker != null ? blocker
                : settings.policy() == SchedulingPolicy.BLOCKING_QUEUE && ahead > 0
                ? "fits now, but the blocking queue admits the " + ahead + " job(s) ahead of it first"
                : "fits now";
        return new DryRun(e.group, e.priority, fits, ahead + 1, reason);
    }

    /** Why a pending job is not admitted, with the numbers. */
    private String reason(Entry e, Entry head) {
        if (e.state == State.HELD) {
            return e.hold.reason();
        }
        String when = e.state == State.BACKOFF ? "backing off until " + e.retryAt.truncatedTo(ChronoUnit.MILLIS) + " (" + e.attempts + (e.attempts == 1 ? " try)" : " tries)")
                : "tried in the next cycle";
        if (settings.policy() == SchedulingPolicy.BLOCKING_QUEUE && head != null && e != head) {
            return "blocking queue: waits behind the head of quota group " + e.group + ", " + head.job.key() + "; "
                    + when;
        }
        String blocker = blocker(e);
        return (blocker == null ? "fits now; " : blocker + "; ") + when;
    }

    /** The first resource and node where the job does not fit now, with the numbers; null if it fits. */
    private String blocker(Entry entry) {
        Shortfall s = shortfall(entry.group, entry);
        if (s == null) {
            return null;
        }
        if (s.held() != null) {
            return s.held();
        }
        String k = s.resource();
        return k + ": request " + Resources.format(k, s.request()) + (s.ofMin() ? ", non-preemptible in use " : ", in use ")
                + Resources.format(k, s.inUse()) + (s.ofMin() ? " of min " : " of max ")
                + Resources.format(k, s.limit()) + " in quota group " + s.node();
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

    private Entry newEntry(JobObservation observation) {
        Entry entry = new Entry(observation, clock.instant(), priorityClasses.resolve(observation.priority()));
        jobs.put(observation.key(), entry);
        return entry;
    }

    private Duration backoffFor(int attempts) {
        Duration d = settings.initialBackoff();
        for (int i = 1; i < attempts && d.compareTo(settings.maxBackoff()) < 0; i++) {
            d = d.multipliedBy(2);
        }
        return d.compareTo(settings.maxBackoff()) > 0 ? settings.maxBackoff() : d;
    }

    /**
     * Whether the cycle may try this group's active head. Under the blocking queue a backed-off job (a refused
     * admission) ahead of the active head still blocks the group.
     */
    private boolean mayTry(GroupQueue queue) {
        if (queue.active.isEmpty()) {
            return false;
        }
        return settings.policy() != SchedulingPolicy.BLOCKING_QUEUE || queue.backedOff.isEmpty()
                || QUEUE_ORDER.compare(queue.active.first(), queue.backedOff.first()) < 0;
    }

    /** Puts a pending job into its group's active queue, or holds it if it has no group. */
    private void activate(Entry entry) {
        Optional<QuotaNode> group = tree.groupFor(entry.job.key().namespace(), entry.job.quotaName());
        if (group.isEmpty()) {
            entry.group = null;
            hold(entry, Hold.Reason.NO_QUOTA_GROUP, noGroupReason(entry.job));
            return;
        }
        entry.group = group.get().name();
        entry.state = State.ACTIVE;
        entry.hold = null;
        entry.refused = false;
        queues.computeIfAbsent(entry.group, GroupQueue::new).active.add(entry);
    }

    /** Why a job has no quota group, in words a user can act on. */
    private String noGroupReason(JobObservation job) {
        return tree.nodes().isEmpty() ? "no quota groups are in force yet (quota objects unreadable, or no valid ElasticQuotaTree)"
                : job.quotaName() != null && !job.quotaName().isEmpty()
                ? "quota group " + job.quotaName() + " (label quota.scheduling.alibabacloud.com/name) does not exist"
                : "namespace " + job.key().namespace() + " belongs to no quota group";
    }

    private void backOff(Entry entry, Instant retryAt) {
        entry.state = State.BACKOFF;
        entry.retryAt = retryAt;
        backoff.add(entry);
        queues.computeIfAbsent(entry.group, GroupQueue::new).backedOff.add(entry);
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
        if (entry.state == State.ACTIVE || entry.state == State.BACKOFF) {
            GroupQueue queue = queues.get(entry.group);
            if (entry.state == State.BACKOFF) {
                backoff.remove(entry);
                entry.retryAt = null;
            }
            if (queue != null) {
                queue.active.remove(entry);
                queue.backedOff.remove(entry);
                dropIfEmpty(queue);
            }
        } else if (entry.state == State.HELD) {
            held.remove(entry.job.key());
        }
    }

    private void dropIfEmpty(GroupQueue queue) {
        if (queue.active.isEmpty() && queue.backedOff.isEmpty()) {
            queues.remove(queue.group);
        }
    }

    private void reprioritise(Entry entry, int priority) {
        if (entry.state == State.ACTIVE || entry.state == State.BACKOFF) {
            State state = entry.state;
            Instant retryAt = entry.retryAt;
            dequeue(entry);
            entry.priority = priority;
            if (state == State.BACKOFF) {
                backOff(entry, retryAt);
            } else {
                entry.state = State.ACTIVE;
                queues.computeIfAbsent(entry.group, GroupQueue::new).active.add(entry);
            }
        } else {
            entry.priority = priority;
        }
    }

    private void update(Entry entry, JobObservation observation) {
        JobObservation old = entry.job;
        boolean placementChanged = !old.priority().equals(observation.priority())
                || !old.request().equals(observation.request())
                || !Objects.equals(old.quotaName(), observation.quotaName())
                || old.preemptible() != observation.preemptible();
        if (!placementChanged) {
            entry.setJob(keepCreation(observation, old), priorityClasses);
            return;
        }
        State previous = entry.state;
        Instant retryAt = entry.retryAt;
        dequeue(entry);
        entry.setJob(keepCreation(observation, old), priorityClasses);
        if (previous == State.BACKOFF && old.request().equals(observation.request())
                && Objects.equals(old.quotaName(), observation.quotaName())
                && old.preemptible() == observation.preemptible()) {
            backOff(entry, retryAt); // only its priority changed: it still does not fit
        } else {
            activate(entry);
        }
    }

    /** Whether the two copies of a job would be charged alike: the same request, both (non-)preemptible. */
    private static boolean sameCharge(JobObservation a, JobObservation b) {
        return a.request().equals(b.request()) && a.preemptible() == b.preemptible();
    }

    /** An update never moves a job back in its queue: the first creation time seen is kept. */
    private static JobObservation keepCreation(JobObservation next, JobObservation old) {
        if (next.createdAt().equals(old.createdAt())) {
            return next;
        }
        return new JobObservation(next.key(), next.uid(), next.phase(), next.request(), next.priority(), old.createdAt(),
                next.quotaName(), next.preemptible(), next.record(), next.resourceVersion());
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
        charge(entry, record, false);
    }

    /**
     * @param unknown the job runs but its request cannot be read: it is charged one job and holds every group on
     *                its path that declares a limit (see {@link #observeUnreadable})
     */
    private void charge(Entry entry, AdmissionRecord record, boolean unknown) {
        entry.state = State.ADMITTED;
        entry.seenRunning = false;
        entry.confirmedVersion = null;
        entry.unconfirmed = false;
        entry.newest = null;
        entry.newestUnreadable = false;
        entry.chargeUnknown = unknown;
        entry.refused = false;
        entry.record = record;
        entry.hold = null;
        entry.retryAt = null;
        entry.charged = entry.effectiveRequest();
        entry.chargedGuaranteed = !entry.job.preemptible();
        entry.chargedGroup = groupToCharge(entry, record);
        addUsage(entry);
    }

    /**
     * The group an admitted job uses: its record's group if that is a declared group, else where it would be
     * queued now. Under the ResourceQuota plugin the group is always the namespace, whatever the record says (a
     * record written under the ElasticQuotaTree plugin names a tree node, which is no namespace's quota).
     */
    private String groupToCharge(Entry entry, AdmissionRecord record) {
        if (!tree.groupsAreNamespaces() && record.group() != null && tree.node(record.group()).isPresent()) {
            return record.group();
        }
        return groupOf(entry.job);
    }

    /** Where the job would be queued now; null if it has no group. */
    private String groupOf(JobObservation job) {
        return tree.groupFor(job.key().namespace(), job.quotaName()).map(QuotaNode::name).orElse(null);
    }

    private void uncharge(Entry entry) {
        uncharge(entry, true);
    }

    /**
     * @param ran whether the job may have run: then its pods may still be counted outside (see
     *            {@link #trackExternalUsage}) and its end is a release
     */
    private void uncharge(Entry entry, boolean ran) {
        if (entry.record != null && entry.chargedGroup != null) {
            for (QuotaNode node : tree.pathToRoot(entry.chargedGroup)) {
                gainedRoom(node.name());
                subtract(usage, node.name(), entry.charged);
                if (entry.chargedGuaranteed) {
                    subtract(guaranteedUsage, node.name(), entry.charged);
                }
                if (entry.chargeUnknown) {
                    unknownUsage.computeIfPresent(node.name(), (n, jobs) -> {
                        jobs.remove(entry.job.key());
                        return jobs.isEmpty() ? null : jobs;
                    });
                }
            }
            if (externalRecount != null) {
                // a recount that read this job as admitted is stale now, whatever happens next
                externalRecountTicket.merge(entry.chargedGroup, 1L, Long::sum);
                if (ran) {
                    // its pods may still run: count them outside kube-queue until the recount says otherwise
                    external.merge(entry.chargedGroup, entry.charged.with(Resources.MAX_JOBS, 0), Resources::plus);
                }
                externalRecount.accept(entry.chargedGroup);
            }
            if (ran) {
                released(entry.chargedGroup);
            }
        }
        entry.record = null;
        entry.chargedGroup = null;
        entry.charged = Resources.NONE;
        entry.chargedGuaranteed = false;
        entry.chargeUnknown = false;
        entry.unconfirmed = false;
        entry.state = null;
    }

    private static void subtract(Map<String, Resources> usage, String node, Resources amount) {
        usage.computeIfPresent(node, (name, used) -> {
            Resources left = used.minus(amount);
            return left.isEmpty() ? null : left;
        });
    }

    /**
     * Something was released in the group's tree. Under the strict policies every backed-off job of that tree
     * is retried in the next cycle, from the highest priority and earliest: retry on release marks each group
     * under the released root, and the cycle reads its backed-off set in place; the blocking queue (whose
     * backed-off jobs are only refused admissions, a handful) moves them back to active. Costs O(groups):
     * other trees are not touched.
     */
    private void released(String group) {
        if (settings.policy() == SchedulingPolicy.DEFAULT || backoff.isEmpty() || group == null) {
            return;
        }
        String root = tree.rootOf(group);
        if (root == null) {
            return;
        }
        for (GroupQueue queue : queues.values()) {
            if (queue.backedOff.isEmpty() || !root.equals(tree.rootOf(queue.group))) {
                continue;
            }
            if (settings.policy() == SchedulingPolicy.RETRY_ON_RELEASE) {
                retryAfterRelease.add(queue.group); // by name: the group's queue object may be rebuilt meanwhile
                continue;
            }
            for (Iterator<Entry> it = queue.backedOff.iterator(); it.hasNext();) {
                Entry e = it.next();
                if (e.refused) {
                    continue; // waits out its backoff
                }
                it.remove();
                backoff.remove(e);
                e.retryAt = null;
                e.state = State.ACTIVE;
                queue.active.add(e);
            }
        }
    }

    private void addUsage(Entry entry) {
        if (entry.chargedGroup == null) {
            return;
        }
        for (QuotaNode node : tree.pathToRoot(entry.chargedGroup)) {
            usage.merge(node.name(), entry.charged, Resources::plus);
            if (entry.chargedGuaranteed) {
                guaranteedUsage.merge(node.name(), entry.charged, Resources::plus);
            }
            if (entry.chargeUnknown) {
                unknownUsage.computeIfAbsent(node.name(), n -> new TreeSet<>()).add(entry.job.key());
            }
        }
    }

    /**
     * Whether the job fits now: for every resource it requests, admitted usage (plus usage outside kube-queue
     * at its own group) + request ≤ max at its group and every ancestor that declares the resource; a
     * non-preemptible job must also keep non-preemptible usage + request ≤ min wherever min declares it.
     */
    private boolean fits(String group, Entry entry) {
        return shortfall(group, entry) == null;
    }

    /**
     * The first resource, on the path from the group up, where the job does not fit now (see {@link #fits});
     * null if it fits. Only a failing check allocates, so the decision path stays cheap.
     *
     * @param ofMin whether it is a non-preemptible job's min that is short, not a max
     */
    private record Shortfall(String node, String resource, long request, long inUse, long limit, boolean ofMin,
                             String held) {
        Shortfall(String node, String resource, long request, long inUse, long limit, boolean ofMin) {
            this(node, resource, request, inUse, limit, ofMin, null);
        }
    }

    private Shortfall shortfall(String group, Entry entry) {
        return shortfall(group, entry.effectiveRequest(), entry.job.preemptible());
    }

    private Shortfall shortfall(String group, Resources request, boolean preemptible) {
        for (QuotaNode node : tree.pathToRoot(group)) {
            if (node.heldBecause() != null) {
                return new Shortfall(node.name(), null, 0, 0, 0, false, "quota group " + node.name()
                        + " admits nothing now: " + node.heldBecause());
            }
            TreeSet<JobKey> unknown = unknownUsage.get(node.name());
            if (unknown != null && (!node.max().isEmpty() || !preemptible && !node.min().isEmpty())) {
                return new Shortfall(node.name(), null, 0, 0, 0, false, "quota group " + node.name()
                        + " admits nothing now: admitted job " + unknown.first()
                        + " runs with a request kube-queue cannot read, so the group's use is unknown");
            }
            Resources used = usage.getOrDefault(node.name(), Resources.NONE);
            Resources outside = external.get(node.name());
            if (outside != null && node.name().equals(group)) {
                used = used.plus(outside); // saturates, never wraps
            }
            Shortfall s = shortOf(node, request, used, node.max(), false);
            if (s == null && !preemptible) {
                s = shortOf(node, request, guaranteedUsage.getOrDefault(node.name(), Resources.NONE), node.min(), true);
            }
            if (s != null) {
                return s;
            }
        }
        return null;
    }

    /** The first resource whose limit, where declared, used + request exceeds; null if none. */
    private static Shortfall shortOf(QuotaNode node, Resources request, Resources used, Resources limit, boolean ofMin) {
        for (Map.Entry<String, Long> r : request.asMap().entrySet()) {
            String k = r.getKey();
            if (ofMin && k.equals(Resources.MAX_JOBS)) {
                continue;
            }
            // written as request > limit - used so that it cannot overflow (both are ≥ 0, sums saturate)
            if (limit.has(k) && r.getValue() > limit.get(k) - used.get(k)) {
                return new Shortfall(node.name(), k, r.getValue(), used.get(k), limit.get(k), ofMin);
            }
        }
        return null;
    }

    /** A description of why the request exceeds some max (or, non-preemptible, some min) on the path even with
     * nothing admitted, or null. */
    private String neverFits(String group, Entry entry) {
        return neverFits(new FitShape(group, entry.effectiveRequest(), entry.job.preemptible()));
    }

    private String neverFits(FitShape shape) {
        return neverFitsMemo.computeIfAbsent(shape, s -> Optional.ofNullable(neverFitsUnderTree(s))).orElse(null);
    }

    private String neverFitsUnderTree(FitShape shape) {
        String group = shape.group();
        Resources request = shape.request();
        boolean preemptible = shape.preemptible();
        for (QuotaNode node : tree.pathToRoot(group)) {
            for (Map.Entry<String, Long> r : request.asMap().entrySet()) {
                String k = r.getKey();
                if (node.max().has(k) && r.getValue() > node.max().get(k)) {
                    return k + ": request " + Resources.format(k, r.getValue()) + " exceeds max "
                            + Resources.format(k, node.max().get(k)) + " of quota group " + node.name();
                }
                if (!preemptible && !k.equals(Resources.MAX_JOBS) && node.min().has(k)
                        && r.getValue() > node.min().get(k)) {
                    return k + ": request " + Resources.format(k, r.getValue()) + " exceeds min "
                            + Resources.format(k, node.min().get(k)) + " of quota group " + node.name()
                            + " (a non-preemptible job must fit in min)";
                }
            }
        }
        return null;
    }

    /** At most this many distinct requests are shared (see {@link #shared}); past it, each job keeps its own. */
    private static final int SHARED_REQUESTS_LIMIT = 4096;
    private static final Map<Resources, Resources> SHARED_REQUESTS = new ConcurrentHashMap<>();

    /**
     * One instance per distinct request: the fit memos and the backed-off sets are keyed by requests, and equal
     * instances compare at once, where equal copies walk both maps (a cluster asks for few distinct amounts).
     */
    private static Resources shared(Resources request) {
        Resources known = SHARED_REQUESTS.get(request);
        if (known != null) {
            return known;
        }
        if (SHARED_REQUESTS.size() >= SHARED_REQUESTS_LIMIT) {
            return request;
        }
        known = SHARED_REQUESTS.putIfAbsent(request, request);
        return known != null ? known : request;
    }

    private static final class Entry {
        JobObservation job;
        /** The resolved priority, cached for queue order; changed only while out of every sorted set. */
        int priority;
        /** When the job was last queued (first seen, or suspended again). */
        Instant queuedAt;
        State state;
        String group;
        int attempts;
        Instant retryAt;
        Hold hold;
        Hold lastHold;
        AdmissionRecord record;
        String chargedGroup;
        Resources charged = Resources.NONE;
        boolean chargedGuaranteed;
        /** The job was seen running (unsuspended) since its charge: a suspend mark seen now is a re-suspension. */
        boolean seenRunning;
        /** The resourceVersion our admission patch produced, or null. */
        String confirmedVersion;
        /** The admission's answer was lost (5xx, timeout) and reading the job back failed: outcome unknown. */
        boolean unconfirmed;
        /** The newest suspended copy seen while the admission was on its way; applied if it is handed back. */
        JobObservation newest;
        /** That copy's request cannot be read: if the admission is handed back, the job is withdrawn. */
        boolean newestUnreadable;
        /** Runs with a request that cannot be read: charged one job, and holds its groups (see unknownUsage). */
        boolean chargeUnknown;
        /** In backoff after a refused admission: only the backoff's expiry retries it. */
        boolean refused;

        /** The request plus one job of the {@link Resources#MAX_JOBS} pseudo-resource; kept, as fit checks are hot. */
        private Resources effectiveRequest;

        Entry(JobObservation job, Instant queuedAt, int priority) {
            this.job = job;
            this.queuedAt = queuedAt;
            this.priority = priority;
            this.effectiveRequest = shared(job.request().with(Resources.MAX_JOBS, 1));
        }

        /** Only while the entry is in no sorted set: its priority may change. */
        void setJob(JobObservation next, PriorityClasses classes) {
            if (!next.request().equals(job.request())) {
                effectiveRequest = shared(next.request().with(Resources.MAX_JOBS, 1));
            }
            this.job = next;
            this.priority = classes.resolve(next.priority());
        }

        Resources effectiveRequest() {
            return effectiveRequest;
        }
    }

    private static final class GroupQueue {
        final String group;
        final TreeSet<Entry> active = new TreeSet<>(QUEUE_ORDER);
        final BackedOff backedOff = new BackedOff();

        GroupQueue(String group) {
            this.group = group;
        }
    }

    /** A job's shape for fitting, within its group: its request (with the job count) and its preemptibility. */
    private record Shape(Resources request, boolean preemptible) {
        static Shape of(Entry entry) {
            return new Shape(entry.effectiveRequest(), entry.job.preemptible());
        }
    }

    /**
     * A group's backed-off jobs in queue order, and the same jobs split by {@link Shape}: a retry after a release
     * walks one cursor per shape that fits now ({@link #cursor}), so the jobs of a shape that does not fit are not
     * visited. An entry's shape does not change while it is in the set (as its priority: see {@link Entry#setJob}).
     */
    private static final class BackedOff implements Iterable<Entry> {
        private final TreeSet<Entry> entries = new TreeSet<>(QUEUE_ORDER);
        private final Map<Shape, TreeSet<Entry>> byShape = new HashMap<>();

        boolean add(Entry entry) {
            if (!entries.add(entry)) {
                return false;
            }
            byShape.computeIfAbsent(Shape.of(entry), s -> new TreeSet<>(QUEUE_ORDER)).add(entry);
            return true;
        }

        boolean remove(Entry entry) {
            if (!entries.remove(entry)) {
                return false;
            }
            forgetShape(entry);
            return true;
        }

        private void forgetShape(Entry entry) {
            Shape shape = Shape.of(entry);
            TreeSet<Entry> same = byShape.get(shape);
            same.remove(entry);
            if (same.isEmpty()) {
                byShape.remove(shape);
            }
        }

        /** The shapes present. */
        Set<Shape> shapes() {
            return byShape.keySet();
        }

        /** The jobs of one shape present, in queue order; its {@code remove} takes the job out of the whole set. */
        Iterator<Entry> cursor(Shape shape) {
            TreeSet<Entry> same = byShape.get(shape);
            return removing(same.iterator(), removed -> {
                entries.remove(removed);
                if (same.isEmpty()) {
                    byShape.remove(shape, same);
                }
            });
        }

        boolean isEmpty() {
            return entries.isEmpty();
        }

        int size() {
            return entries.size();
        }

        Entry first() {
            return entries.first();
        }

        java.util.SortedSet<Entry> headSet(Entry entry) {
            return java.util.Collections.unmodifiableSortedSet(entries.headSet(entry));
        }

        @Override
        public Iterator<Entry> iterator() {
            return removing(entries.iterator(), this::forgetShape);
        }

        /** {@code inner}, whose {@code remove} also runs {@code alsoRemove} on the entry removed. */
        private static Iterator<Entry> removing(Iterator<Entry> inner, Consumer<Entry> alsoRemove) {
            return new Iterator<>() {
                private Entry last;

                @Override
                public boolean hasNext() {
                    return inner.hasNext();
                }

                @Override
                public Entry next() {
                    last = inner.next();
                    return last;
                }

                @Override
                public void remove() {
                    inner.remove();
                    alsoRemove.accept(last);
                }
            };
        }
    }
}
