package io.kubequeue.scheduler;

import io.kubequeue.scheduler.eviction.Evictions;
import io.kubequeue.scheduler.eviction.ReclaimPlanner;
import io.kubequeue.scheduler.eviction.Reclaims;
import io.kubequeue.scheduler.ledger.QuotaLedger.FitShape;
import io.kubequeue.scheduler.ledger.QuotaLedger;
import io.kubequeue.scheduler.model.Admission;
import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.CycleResult;
import io.kubequeue.scheduler.model.Eviction;
import io.kubequeue.scheduler.model.Hold;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.scheduler.queue.BackedOffJobs;
import io.kubequeue.scheduler.queue.BackoffWave;
import io.kubequeue.scheduler.queue.GroupQueue;
import io.kubequeue.scheduler.queue.JobEntry;
import io.kubequeue.scheduler.queue.QueueManager;
import io.kubequeue.scheduler.queue.QueueOrder;
import io.kubequeue.scheduler.queue.Times;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Set;

/**
 * One scheduling cycle, one pass under {@link Scheduler}'s lock: expired backoffs end, then jobs are tried in queue
 * order across all groups, merging one candidate per group in a priority queue, so one decision costs
 * O(log groups + log jobs + path × resources) and never scans a queue ({@link CycleResult#tried()} counts the
 * decisions). What a job that does not fit does next is the {@link QueuePolicy}'s to say:
 * <ul>
 *   <li>default: it leaves the active set for backoff, so every job is tried at most once per cycle and the one
 *       that fits behind 5,000 that do not is reached in the same cycle, after 5,000 cheap O(log n) moves;</li>
 *   <li>blocking queue: the group leaves the cycle after its head's one try, so the jobs behind it cost nothing,
 *       and other groups go on;</li>
 *   <li>retry on release: the released groups' backed-off sets are read in place, merged in queue order with the
 *       active heads, one cursor per shape, and a job that still does not fit stays where it is.</li>
 * </ul>
 * Within a cycle usage only grows (a release needs the lock), so a shape found short stays short for the rest of it.
 *
 * <p>Expired backoffs cost a cycle O(waves), not O(jobs) (issue 27): jobs that back off alike (group, shape, retry
 * time, tries) wait as one {@link BackoffWave}, and a wave whose shape is still short where it last was (its node has
 * gained no room since: {@link QuotaLedger#shortNow}) and for which no reclaim can start has its try counted for every
 * member at once, and waits again, doubled, whole. A wave whose shape may fit goes back to active, job by job, and one
 * that may reclaim is decided job by job in its place in retry order: every decision, try count and retry time is
 * what each job alone would get ({@code BackoffWavesPropertiesTest}).
 */
final class SchedulingCycle {

    private final Clock clock;
    private final QueueManager queues;
    private final QuotaLedger ledger;
    private final QueuePolicy policy;
    private final AdmissionClock admissionClock;
    private final Reclaims reclaims;
    private final Evictions evictions;
    /** {@link Decided#visited} of the last cycle run. */
    private int lastVisits;

    SchedulingCycle(Clock clock, QueueManager queues, QuotaLedger ledger, QueuePolicy policy,
                    AdmissionClock admissionClock, Reclaims reclaims, Evictions evictions) {
        this.clock = clock;
        this.queues = queues;
        this.ledger = ledger;
        this.policy = policy;
        this.admissionClock = admissionClock;
        this.reclaims = reclaims;
        this.evictions = evictions;
    }

    /**
     * Reclaim plans one cycle makes at most: each reads every victim candidate, so a cycle with thousands of jobs
     * that could reclaim stays bounded; the others try again in a later cycle.
     */
    static final int RECLAIM_PLANS_PER_CYCLE = 16;

    /**
     * What a cycle decides besides admissions: evictions and the reclaims they serve; shapes that cannot reclaim;
     * the victim candidates (read once, on the first plan) and how many plans were made.
     */
    private static final class Evicting {
        final List<Eviction> evictions = new ArrayList<>();
        final List<CycleResult.Reclaim> reclaims = new ArrayList<>();
        final Set<FitShape> cannot = new HashSet<>();
        ReclaimPlanner.Pool pool;
        int plans;
    }

    /** The next job a cycle may try in one group: its active head, or the next backed-off job to retry. */
    private record Candidate(GroupQueue queue, JobEntry entry, Iterator<JobEntry> cursor)
            implements Comparable<Candidate> {
        @Override
        public int compareTo(Candidate other) {
            int byJob = QueueOrder.JOBS.compare(entry, other.entry);
            if (byJob != 0) {
                return byJob;
            }
            int byGroup = queue.group().compareTo(other.queue.group());
            return byGroup != 0 ? byGroup : Boolean.compare(cursor != null, other.cursor != null);
        }
    }

    /**
     * What a cycle has decided so far. Kept apart from the pass that decides, so that a failure anywhere in the pass
     * (a bug, a value nobody foresaw) ends it with everything decided until then: every admission charged is handed
     * out, never left charged and unsent (issue 25).
     */
    private static final class Decided {
        final List<Admission> admissions = new ArrayList<>();
        final Evicting evicting = new Evicting();
        final List<JobEntry> backedOffNow = new ArrayList<>();
        final List<CycleResult.Unschedulable> firstFailures = new ArrayList<>();
        int tried;
        /** The jobs (or waves of jobs) the pass touched one by one: what it cost, as {@link #lastVisits} says. */
        int visited;
        int notFitting;
        int heldInCycle;
        /** The job being decided, taken out of its set and not yet put anywhere; null between jobs. */
        JobEntry deciding;
        RuntimeException failure;
    }

    /**
     * Runs the cycle; every admission returned is already charged. A failure ends the pass early and is in the
     * result ({@link CycleResult#failure()}), with every admission charged until then; only a clock that fails before
     * anything is decided throws.
     */
    CycleResult run() {
        Instant now = clock.instant();
        Decided decided = new Decided();
        try {
            decide(now, decided);
        } catch (RuntimeException e) {
            decided.failure = decided.failure == null ? e : decided.failure;
            JobEntry stranded = decided.deciding;
            if (stranded != null && stranded.state() != JobState.ADMITTED && stranded.state() != JobState.HELD) {
                // neither charged nor back in a set: it waits in backoff, so the next cycle does not fail on it first
                queues.leaveWave(stranded); // its tries are its own from here (the rest of its wave stays due)
                queues.countTry(stranded);
                queues.backOffAfterFailure(stranded, Times.plus(now, queues.backoffFor(stranded.ownAttempts())));
            }
        }
        for (JobEntry entry : decided.backedOffNow) {
            queues.backOff(entry, Times.plus(now, queues.backoffFor(entry.ownAttempts())));
        }
        queues.dropEmptyQueues();
        lastVisits = decided.visited;
        return new CycleResult(decided.admissions, queues.takeNewHolds(), decided.tried, decided.firstFailures,
                decided.notFitting, decided.heldInCycle, decided.evicting.evictions, decided.evicting.reclaims,
                decided.failure);
    }

    /**
     * How many entries the last cycle touched one by one: each expired backoff taken from the global set, each job
     * moved back to active, each candidate tried. What a cycle costs, counted (not timed), for tests: unlike
     * {@link CycleResult#tried()}, which counts every job decided, a job that is not looked at is not counted.
     */
    int lastVisits() {
        return lastVisits;
    }

    /** The cycle's pass: what it decides goes into {@code decided} as it is decided. */
    private void decide(Instant now, Decided decided) {
        List<Admission> admissions = decided.admissions;
        Evicting evicting = decided.evicting;
        evicting.evictions.addAll(evictions.dueTimeouts(now));
        // preemptors whose victims are seen suspended go first, before any other job can take their room
        reclaims.settle(admissions, (group, entry) -> admit(group, entry, now, decided));
        List<JobEntry> backedOffNow = decided.backedOffNow;
        List<CycleResult.Unschedulable> firstFailures = decided.firstFailures;
        // requests found not to fit, per group, in this cycle: usage only grows within a cycle, so they cannot fit
        // later in it either; the other jobs of the same shape skip the fit check, which keeps a retry-on-release
        // cycle over thousands of backed-off jobs cheap
        Set<FitShape> notFittingNow = new HashSet<>();
        int stillShort = endBackoffs(now, notFittingNow, evicting, decided);
        decided.tried = stillShort;
        decided.notFitting = stillShort;
        Set<String> retryInPlace = policy.takeGroupsToRetry();
        PriorityQueue<Candidate> heads = new PriorityQueue<>();
        for (GroupQueue queue : queues.queues()) {
            if (policy.mayTry(queue)) {
                heads.add(new Candidate(queue, queue.active.first(), null));
            }
            if (retryInPlace.contains(queue.group()) && !queue.backedOff.isEmpty()) {
                // one cursor per shape: a shape that does not fit now is not walked at all, so a release costs a few
                // checks per group, not one per backed-off job
                for (BackedOffJobs.Shape shape : List.copyOf(queue.backedOff.shapes())) {
                    FitShape fitShape = new FitShape(queue.group(), shape.request(), shape.preemptible());
                    if (ledger.shortNow(fitShape, notFittingNow)) {
                        continue;
                    }
                    Iterator<JobEntry> cursor = queue.backedOff.cursor(shape);
                    heads.add(new Candidate(queue, cursor.next(), cursor));
                }
            }
        }
        while (!heads.isEmpty()) {
            Candidate candidate = heads.poll();
            GroupQueue queue = candidate.queue;
            JobEntry entry = candidate.entry;
            decided.tried++;
            decided.visited++;
            boolean fromBackoff = candidate.cursor != null;
            if (fromBackoff && (entry.refused() || reclaims.yields(entry))) {
                // a refused admission waits out its backoff, a reclaim's victim its preemptor: not tried, not counted
                decided.tried--;
                if (candidate.cursor.hasNext()) {
                    heads.add(new Candidate(queue, candidate.cursor.next(), candidate.cursor));
                }
                continue;
            }
            FitShape shape = FitShape.of(queue.group(), entry);
            String neverFits = notFittingNow.contains(shape) ? null : ledger.neverFits(shape);
            if (fromBackoff) {
                // retried at once after a release, read in place: a job that still does not fit stays where it is
                // (its backoff timer runs on); the jobs behind it on its cursor have its shape, so they would not
                // fit either: the cursor ends there
                boolean walkOn = true;
                if (neverFits != null || !ledger.shortNow(shape, notFittingNow)) {
                    candidate.cursor.remove();
                    queues.leftBackoff(entry);
                    decided.deciding = entry;
                    if (neverFits != null) {
                        queues.hold(entry, Hold.Reason.NEVER_FITS, neverFits);
                        decided.heldInCycle++;
                    } else {
                        admissions.add(admit(queue.group(), entry, now, decided));
                    }
                    decided.deciding = null;
                } else {
                    queues.failedInPlace(entry); // one more try, out of its wave if it was in one
                    decided.notFitting++;
                    walkOn = false;
                }
                if (walkOn && candidate.cursor.hasNext()) {
                    heads.add(new Candidate(queue, candidate.cursor.next(), candidate.cursor));
                }
            } else {
                queue.active.pollFirst();
                decided.deciding = entry;
                boolean blocked = false;
                boolean yields = reclaims.yields(entry);
                if (neverFits != null && !yields) {
                    queues.hold(entry, Hold.Reason.NEVER_FITS, neverFits);
                    decided.heldInCycle++;
                } else if (!yields && !ledger.shortNow(shape, notFittingNow)) {
                    admissions.add(admit(queue.group(), entry, now, decided));
                } else if (yields || !reclaim(queue.group(), entry, now, evicting)) {
                    queues.countTry(entry);
                    decided.notFitting++;
                    if (entry.ownAttempts() == 1 && !yields) {
                        firstFailures.add(new CycleResult.Unschedulable(entry.job().key(), queue.group(),
                                ledger.blocker(entry.group(), entry)));
                    }
                    if (policy.keepsHeadWhenShort()) {
                        queue.active.add(entry); // stays the head; the whole group waits for the next change
                        blocked = true;
                    } else {
                        queues.backingOff(entry);
                        backedOffNow.add(entry); // joins the backed-off set after the cycle, so no cursor meets it
                    }
                }
                decided.deciding = null;
                if (!blocked && policy.mayTry(queue)) {
                    heads.add(new Candidate(queue, queue.active.first(), null));
                }
            }
        }
    }

    /**
     * Starts a reclaim for a job that does not fit, if reclaim is on and victims exist ({@link Reclaims}); the job is
     * then held. A shape found unable to reclaim is not planned again in this cycle (usage only grows within it).
     */
    private boolean reclaim(String group, JobEntry entry, Instant now, Evicting evicting) {
        if (!reclaims.enabled() || entry.refused() || entry.yieldsTo() != null) {
            return false;
        }
        FitShape shape = FitShape.of(group, entry);
        if (evicting.cannot.contains(shape) || evicting.plans >= RECLAIM_PLANS_PER_CYCLE) {
            return false;
        }
        if (evicting.pool == null) {
            evicting.pool = reclaims.pool(now);
        }
        evicting.plans++;
        List<Eviction> victims = reclaims.tryStart(group, entry, now, evicting.pool, evicting.reclaims);
        if (victims == null) {
            evicting.cannot.add(shape);
            return false;
        }
        evicting.evictions.addAll(victims);
        return true;
    }

    /**
     * Ends the backoffs that expired by {@code now}: each job goes back to its group's active queue, to be tried in
     * this cycle in queue order. Where the policy allows ({@link QueuePolicy#retriesExpiredInPlace}), a job whose
     * shape does not fit at the start of the cycle would be tried and fail, so that try is made here: it counts as
     * tried and not fitting, and it waits again, doubled, without leaving its group's backed-off set. Under load
     * most expired jobs are of this kind, and moving each one out and back in was a fifth of a cycle's cost.
     *
     * @return how many jobs were tried here
     */
    private int endBackoffs(Instant now, Set<FitShape> notFittingNow, Evicting evicting, Decided decided) {
        List<JobEntry> waitAgain = new ArrayList<>();
        List<BackoffWave> wavesWaitAgain = new ArrayList<>();
        Set<FitShape> mayFit = new HashSet<>();
        int tried = 0;
        try {
            tried = endExpired(now, notFittingNow, evicting, decided, waitAgain, wavesWaitAgain, mayFit);
        } finally {
            // out of the global set since they expired: back in, even if the pass failed on another job
            for (JobEntry entry : waitAgain) {
                queues.waitAgain(entry, Times.plus(now, queues.backoffFor(entry.ownAttempts())));
            }
            for (BackoffWave wave : wavesWaitAgain) {
                queues.waitAgain(wave, Times.plus(now, queues.backoffFor(wave.attempts())));
            }
        }
        return tried + waitAgain.size();
    }

    /**
     * The pass of {@link #endBackoffs}.
     *
     * @return how many jobs of waves were tried and wait again (those tried alone are in {@code waitAgain})
     */
    private int endExpired(Instant now, Set<FitShape> notFittingNow, Evicting evicting, Decided decided,
                           List<JobEntry> waitAgain, List<BackoffWave> wavesWaitAgain, Set<FitShape> mayFit) {
        int triedInWaves = 0;
        for (JobEntry entry = queues.pollExpired(now); entry != null; entry = queues.pollExpired(now)) {
            decided.deciding = entry;
            decided.visited++;
            BackoffWave wave = entry.wave();
            if (wave != null) {
                // its members are decided alike (none was refused, none yields): each would meet the same answer
                // here, whatever the order, unless a reclaim may start for the shape
                if (!policy.retriesExpiredInPlace() || !shortAtStart(entry, notFittingNow, mayFit)) {
                    decided.visited += wave.size() - 1;
                    queues.endBackoff(wave); // all may fit: back to active, to be tried in queue order
                    continue;
                }
                if (!reclaimMayStart(wave.shape(), evicting)) {
                    // short where it was short, and no reclaim can start for it in this cycle: the try each would
                    // make alone, counted once for all, and they wait again together, doubled
                    queues.takeWave(wave);
                    queues.countTry(wave);
                    triedInWaves += wave.size();
                    wavesWaitAgain.add(wave);
                    continue;
                }
                queues.leaveWave(entry); // decided alone, as it may start a reclaim; the rest of its wave stays due
            }
            queues.endRefusal(entry);
            if (reclaims.yields(entry)) {
                waitAgain.add(entry); // a reclaim's victim: not before its preemptor (freed at once when it is)
                continue;
            }
            if (policy.retriesExpiredInPlace() && shortAtStart(entry, notFittingNow, mayFit)) {
                if (reclaim(entry.group(), entry, now, evicting)) {
                    continue; // held until its victims are seen suspended
                }
                // a backed-off job has failed before (every way into backoff counts an attempt), so this is never
                // its first failure: no Pending event
                queues.countTry(entry);
                waitAgain.add(entry);
                continue;
            }
            queues.endBackoff(entry, false);
        }
        decided.deciding = null;
        return triedInWaves;
    }

    /** Whether {@link #reclaim} may start a reclaim for a job of this shape (not refused, not yielding) now. */
    private boolean reclaimMayStart(FitShape shape, Evicting evicting) {
        return reclaims.enabled() && !evicting.cannot.contains(shape) && evicting.plans < RECLAIM_PLANS_PER_CYCLE;
    }

    /**
     * Whether the job's shape does not fit now (and can fit some day), as {@link QuotaLedger#shortNow}, which
     * remembers only the shapes that are short: {@code mayFit} keeps the others for the rest of this pass, so each
     * expired job of such a shape is not checked again.
     */
    private boolean shortAtStart(JobEntry entry, Set<FitShape> notFittingNow, Set<FitShape> mayFit) {
        FitShape shape = FitShape.of(entry.group(), entry);
        if (mayFit.contains(shape)) {
            return false;
        }
        if (ledger.shortNow(shape, notFittingNow)) {
            return true;
        }
        mayFit.add(shape);
        return false;
    }

    /**
     * Charges a job and returns its admission. A failure after the charge was made (in what the charge tells, e.g.
     * the timeout watch) does not lose the admission: it is returned, to be sent, and the failure goes into the
     * cycle's result; the cycle goes on.
     */
    private Admission admit(String group, JobEntry entry, Instant now, Decided decided) {
        AdmissionRecord record = admissionClock.next(group, now);
        try {
            queues.admit(entry, record, false);
        } catch (RuntimeException e) {
            if (entry.record() != record || entry.state() != JobState.ADMITTED) {
                throw e; // not charged: nothing to hand out
            }
            decided.failure = decided.failure == null ? e : decided.failure;
        }
        return new Admission(entry.job().key(), entry.job().uid(), record, entry.job().request(),
                Duration.between(entry.queuedAt(), now).toMillis(), entry.job().resourceVersion());
    }
}
