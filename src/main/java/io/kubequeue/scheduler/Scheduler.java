package io.kubequeue.scheduler;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

import io.kubequeue.scheduler.eviction.Evictions;
import io.kubequeue.scheduler.forecast.Forecaster;
import io.kubequeue.scheduler.forecast.Replay;
import io.kubequeue.scheduler.forecast.RunTimeHistory;
import io.kubequeue.scheduler.forecast.SimulatedClock;
import io.kubequeue.scheduler.forecast.Simulation;
import io.kubequeue.scheduler.eviction.Reclaims;
import io.kubequeue.scheduler.ledger.QuotaLedger;
import io.kubequeue.scheduler.model.Admission;
import io.kubequeue.scheduler.model.AdmissionOutcome;
import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.CycleResult;
import io.kubequeue.scheduler.model.DryRun;
import io.kubequeue.scheduler.model.Eviction;
import io.kubequeue.scheduler.model.EvictionMarks;
import io.kubequeue.scheduler.model.Estimate;
import io.kubequeue.scheduler.model.EstimateAccuracy;
import io.kubequeue.scheduler.model.Explanation;
import io.kubequeue.scheduler.model.WhatIf;
import io.kubequeue.scheduler.model.FinishedRun;
import io.kubequeue.scheduler.model.RunTimeHints;
import io.kubequeue.scheduler.model.EvictionOutcome;
import io.kubequeue.scheduler.model.GroupView;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.scheduler.model.JobStatus;
import io.kubequeue.scheduler.model.Observed;
import io.kubequeue.scheduler.model.PendingView;
import io.kubequeue.scheduler.model.PriorityClasses;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.scheduler.model.SchedulerSettings;
import io.kubequeue.scheduler.model.SchedulingPolicy;
import io.kubequeue.scheduler.model.Unreadable;
import io.kubequeue.scheduler.queue.JobEntry;
import io.kubequeue.scheduler.queue.QueueManager;

/**
 * The scheduler core, the one in-memory bean every job kind feeds: one queue per quota group, usage per group, and
 * the admission decisions. It never talks to the cluster; it is fed {@link JobObservation}s, {@link QuotaTree}s,
 * {@link PriorityClasses} and usage from outside kube-queue, and returns {@link Admission}s.
 *
 * <p>Every method takes one lock: decisions are cheap in-memory work, and the Kubernetes writes they lead to happen
 * outside it. Behind this class the core's parts are, lowest first (the first three each a package of its own that
 * uses only those below it: {@code ArchitectureTest.theCoresPartsRunOneWay}; the rest in this package):
 * <ul>
 *   <li>the quota ledger ({@link QuotaLedger}, {@code scheduler.ledger}): usage, guaranteed and outside usage, charge
 *       and release, fit and shortfall, and the charges the queue did not decide: jobs started outside kube-queue
 *       ({@code StartedOutsideCharges}) and jobs whose use is not known yet ({@code UnknownUse});</li>
 *   <li>the queue manager ({@link QueueManager}, {@code scheduler.queue}): every job, group queues,
 *       {@code QueueOrder}, backoff, holds, re-prioritise;</li>
 *   <li>evictions ({@code scheduler.eviction}): admission timeouts ({@link Evictions}) and reclaim
 *       ({@code ReclaimPlanner}, {@link Reclaims}), with the marks a victim carries ({@link EvictionMarks});</li>
 *   <li>the cycle ({@link SchedulingCycle}): one pass, with the {@link QueuePolicy} chosen once from the settings
 *       ({@link DefaultPolicy}, {@link BlockingQueuePolicy}, {@link RetryOnReleasePolicy});</li>
 *   <li>read views ({@link SchedulerViews}): groups, positions, reasons, dry runs;</li>
 *   <li>intake and answers: what the cluster shows of a job ({@link Observations}), what became of an admission
 *       ({@link AdmissionSettlements}), and what is known of each admission's answer ({@link AdmissionAnswers});
 *       the records admissions carry ({@link AdmissionClock}).</li>
 * </ul>
 * Each part is the only writer of its own state (docs/architecture.md, "Who owns what"; held by
 * {@code ArchitectureTest}); the values the parts and the rest of kube-queue exchange live in {@code scheduler.model}.
 */
public final class Scheduler implements JobIntake, Cycles, EvictionSettling, ClusterIntake, Forecasting {

    private final SchedulerSettings settings;
    private final QuotaLedger ledger;
    private final QueueManager queues;
    private final QueuePolicy policy;
    private final SchedulingCycle cycle;
    private final Observations observations;
    private final AdmissionSettlements settlements;
    private final SchedulerViews views;
    private final Evictions evictions;
    private final Reclaims reclaims;
    private final AdmissionAnswers answers;
    private final AdmissionClock admissionClock;
    private final Clock clock;
    private Consumer<Admission> podRanMarks = mark -> {
    };
    /** Run times learnt from finished jobs; has its own lock, and a copy of the core shares it (it only reads it). */
    private RunTimeHistory history = RunTimeHistory.standard();
    /** Counts what changes the core (observations, trees, cycles that decided, settlements): estimates follow it. */
    private volatile long changes;
    /** Made on first use, over {@link #history} (a copy gets the original's history before any use). */
    private Forecaster forecaster;
    /**
     * When each admitted job's admission applied (its patch answered), for the run it is learnt as when it ends: a
     * job admitted in a burst waits seconds for its write, and that wait is the write pipeline's, not its run's.
     * Only the original learns; a copy (a replay) must never write into the history it shares.
     */
    private final Map<JobKey, Instant> runningSince = new java.util.HashMap<>();
    private boolean learns = true;
    private int sweepRunningSinceAt = 1024;

    /**
     * @param settings policy and backoff bounds
     * @param clock    time source; tests pass a fixed or stepping clock
     */
    public Scheduler(SchedulerSettings settings, Clock clock) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.ledger = new QuotaLedger();
        this.answers = new AdmissionAnswers();
        this.queues = new QueueManager(settings, clock, ledger);
        this.policy = policyFor(settings.policy(), queues, ledger);
        ledger.reportReleasesTo(policy::released);
        this.admissionClock = new AdmissionClock(clock);
        this.evictions = new Evictions(clock, queues, ledger, settings.admissionTimeout());
        queues.reportAdmissionsTo(answers, evictions);
        this.reclaims = new Reclaims(queues, ledger, evictions, settings.reclaim());
        this.cycle = new SchedulingCycle(clock, queues, ledger, policy, admissionClock, reclaims, evictions);
        this.observations = new Observations(clock, queues, ledger, answers, admissionClock);
        observations.evictionsGoTo(evictions, reclaims);
        this.settlements = new AdmissionSettlements(clock, queues, ledger, answers, policy, observations);
        this.views = new SchedulerViews(queues, ledger, policy);
    }

    /** The policy for the setting, chosen once: the facade picks it, so the policy's interface names none of them. */
    private static QueuePolicy policyFor(SchedulingPolicy policy, QueueManager queues, QuotaLedger ledger) {
        return switch (policy) {
            case DEFAULT -> new DefaultPolicy();
            case RETRY_ON_RELEASE -> new RetryOnReleasePolicy(queues, ledger);
            case BLOCKING_QUEUE -> new BlockingQueuePolicy(queues, ledger);
        };
    }

    /**
     * The time source every decision is dated by: whoever stamps a decision's later steps (the time an eviction is
     * written) takes its time from here, so both are on one clock.
     */
    /**
     * A copy of the whole core as it stands, on its own clock: every job with its placement, charge, admission's
     * answer and eviction state, the quota groups and their usage (and what is used outside kube-queue), the
     * reclaims in progress, what was seen ended, and the policy's memory. The copy shares no mutable state with this
     * scheduler (the values it shares — observations, trees, records — are immutable): what is done to one does not
     * show in the other, and the copy decides as this scheduler would, given the same calls at the same times
     * ({@code SchedulerCopyPropertiesTest}). For simulating the queue ahead (start-time estimates, what-if) without
     * touching the cluster: a copy reaches nothing outside it — a recount of outside usage is asked of nobody, and
     * which jobs have pods left is read from the same view as here. Memos start empty (they are caches). O(jobs).
     *
     * @param clock the copy's time source (a simulation's own)
     */
    public Scheduler copy(Clock clock) {
        return copy(clock, settings);
    }

    /**
     * As {@link #copy(Clock)}, deciding by other settings from there on (a what-if of the policy switches): the
     * policy's memory is copied only when the policy is the same.
     *
     * @param settings the copy's policy and bounds
     */
    public synchronized Scheduler copy(Clock clock, SchedulerSettings settings) {
        Scheduler copy = new Scheduler(settings, clock);
        Map<JobEntry, JobEntry> entries = copy.queues.copyEntriesFrom(queues);
        copy.ledger.copyFrom(ledger, entries);
        entries.forEach(copy.answers::copy);
        copy.evictions.copyFrom(evictions, entries);
        copy.reclaims.copyFrom(reclaims, entries);
        copy.observations.copyFrom(observations, entries);
        copy.queues.placeCopies(queues, entries); // last: whether a job may wait in a wave reads the fields above
        copy.admissionClock.copyFrom(admissionClock);
        copy.history = history;
        copy.learns = false;
        copy.runningSince.putAll(runningSince);
        if (settings.policy() == this.settings.policy()) {
            copy.policy.copyFrom(policy);
        }
        return copy;
    }

    @Override
    public Clock clock() {
        return clock;
    }

    /** The policy and backoff bounds in force. */
    @Override
    public SchedulerSettings settings() {
        return settings;
    }

    /**
     * Takes in the latest state of one job and says what changed (the rules per phase: {@link Observations}).
     * Idempotent: the same observation twice changes nothing.
     */
    @Override
    public synchronized Observed observe(JobObservation observation) {
        return observe(observation, true);
    }

    /**
     * A job deleted: as {@link #observe} of {@link JobObservation#finished(JobKey, String)} (its room is released, a
     * pending one leaves its queue), except that a running job's run is not learnt for the start-time estimates: its
     * owner cut it short, so how long it ran says nothing of how long such jobs run.
     *
     * @param key the deleted job
     * @param uid its {@code metadata.uid}, or {@code null}: with one, only the job of that uid ends, not a re-created
     *            namesake
     */
    @Override
    public synchronized Observed deleted(JobKey key, String uid) {
        return observe(JobObservation.finished(key, uid), false);
    }

    private Observed observe(JobObservation observation, boolean learnsItsRun) {
        changes++;
        JobEntry before = queues.get(observation.key());
        if (before == null || before.state() != JobState.ADMITTED) {
            return observations.observe(observation);
        }
        AdmissionRecord record = before.record();
        String group = before.group();
        Resources request = before.effectiveRequest();
        Observed observed = observations.observe(observation);
        JobEntry after = queues.get(observation.key());
        if (after == null || after.state() != JobState.ADMITTED || !Objects.equals(record, after.record())) {
            Instant since = runningSince.remove(observation.key());
            if (since != null && learnsItsRun && observation.phase() == JobObservation.Phase.FINISHED) {
                learnEnded(observation.key(), group, request, record, since);
            }
        }
        return observed;
    }

    /** A job seen ending while admitted, whose admission applied at {@code since}: one run, to the millisecond. */
    private void learnEnded(JobKey key, String group, Resources request, AdmissionRecord record, Instant since) {
        if (!learns || record == null || record.startedOutside() || group == null) {
            return;
        }
        try {
            history.record(new FinishedRun(key, group, request, Instant.parse(record.admittedAt()), clock.instant(),
                    since));
        } catch (java.time.format.DateTimeParseException e) {
            // a record whose time does not read teaches nothing
        }
    }

    /**
     * Learns a finished run into the history of run times (see {@link JobIntake#learn}); not under the lock. A run
     * whose end is less than 2 s before now is taken to end now: the end it carries has whole seconds.
     */
    @Override
    public void learn(FinishedRun run) {
        Objects.requireNonNull(run, "run");
        // a Kubernetes completion time has whole seconds (metav1.Time): a run learnt as it ends (within 2 s of now)
        // ends now, to the millisecond, or a run shorter than a second would be learnt as 0 s or as a second
        Duration since = Duration.between(run.finishedAt(), clock.instant());
        if (!since.isNegative() && since.compareTo(Duration.ofSeconds(2)) < 0) {
            run = new FinishedRun(run.key(), run.group(), run.request(), run.admittedAt(), clock.instant());
        }
        history.record(run);
    }

    /** The start-time estimates over this core, made on first use. */
    private synchronized Forecaster forecaster() {
        if (forecaster == null) {
            forecaster = new Forecaster(s -> simulation(s == null ? settings : s), history, clock,
                    Duration.ofSeconds(5), Replay.Limits.STANDARD);
        }
        return forecaster;
    }

    /**
     * Sets how often the estimates are recomputed at most, and each replay's bounds (settings
     * {@code kube-queue.estimates.*}).
     *
     * @throws IllegalArgumentException for a negative interval, a horizon that is not positive or no cycle
     */
    public void tuneEstimates(Duration minInterval, Duration horizon, int cycles) {
        forecaster().tune(minInterval, new Replay.Limits(horizon, cycles));
    }

    /**
     * The last estimate of a pending job's start (see {@link Estimate}), from the last replay, which may be up to the
     * refresh interval old (its {@code computedAt} says); empty if the job was not pending then, or no replay ran
     * yet. Never waits for a replay.
     */
    @Override
    public Optional<Estimate> estimate(JobKey key) {
        return forecaster().estimate(key);
    }

    /**
     * Replays the core if it changed since the last replay and that one is at least the refresh interval old: two
     * copies (O(jobs) each, under the lock) and two replays (outside it). Called on a timer by the wiring.
     *
     * @return whether it replayed
     */
    @Override
    public boolean refreshEstimatesIfDue() {
        return forecaster().refreshIfDue(changes);
    }

    /** Replays now, whatever changed (tests, and the first answer after start-up). */
    public void refreshEstimates() {
        forecaster().refresh(changes);
    }

    /**
     * When a job would start if it were submitted now (the dry run): it is added to copies of the core, which are
     * replayed; this core is not changed. Four copies' and two replays' cost: for an API call.
     *
     * @param job the job as it would be observed, queued
     */
    @Override
    public Estimate estimateIfSubmitted(JobObservation job) {
        return forecaster().ifSubmitted(job);
    }

    /**
     * What a change would do to every pending job (see {@link WhatIf}); nothing is written.
     *
     * @param tree     the quota groups under the change; null: as now
     * @param settings the policy switches under the change; null: as now
     */
    @Override
    public WhatIf whatIf(QuotaTree tree, SchedulerSettings settings) {
        return forecaster().whatIf(tree, settings, changes);
    }

    /**
     * The least that would let a pending job be admitted now, in the tree's own terms, one line each: a limit raised
     * ("raise max cpu of quota group root.team-a by 2"), a job ending (from the last replay), room that other groups
     * use above their min given back. Other jobs are references, rendered per reader. Empty if the job is not pending
     * or fits now.
     */
    @Override
    public List<Explanation> unblock(JobKey key) {
        Forecaster.Forecast forecast = forecaster().current();
        synchronized (this) {
            return views.unblock(key, forecast.freedBy(), forecast.ends());
        }
    }

    /** How wrong the estimates were, over the last admissions (see {@link EstimateAccuracy}). */
    @Override
    public EstimateAccuracy estimateAccuracy() {
        return forecaster().accuracy();
    }

    /** The history of run times the estimates go by. */
    public RunTimeHistory history() {
        return history;
    }

    /**
     * A copy of this core as a {@link Simulation} that a {@link io.kubequeue.scheduler.forecast.Replay} drives, on a
     * simulated clock from now: writes apply at once, admitted jobs' pods run at once, evicted jobs' pods are gone at
     * once. O(jobs), under the lock; the replay itself runs on the copy, outside it.
     *
     * @param settings the settings the copy decides by (this scheduler's, or a what-if's)
     */
    public Simulation simulation(SchedulerSettings settings) {
        SimulatedClock simulated = new SimulatedClock(clock.instant());
        return new Simulated(copy(simulated, settings), simulated);
    }

    /**
     * The {@link Simulation} port on a copy of the core: applies a cycle's admissions and evictions as the cluster
     * would at once (as {@code EvictionScenario} does in the tests). Nested in the facade, the only class of the core
     * that may drive it.
     */
    private static final class Simulated implements Simulation {
        /** Above any version etcd writes, so every simulated copy is newer than the real one it follows. */
        private long version = 1L << 60;
        private final Scheduler core;
        private final SimulatedClock clock;

        Simulated(Scheduler core, SimulatedClock clock) {
            this.core = core;
            this.clock = clock;
            core.watchPods(key -> false);
        }

        @Override
        public Instant now() {
            return clock.instant();
        }

        @Override
        public void advanceTo(Instant time) {
            clock.advanceTo(time);
        }

        @Override
        public List<JobStatus> jobs() {
            return core.jobs();
        }

        @Override
        public Optional<Instant> runningSince(JobKey key) {
            return Optional.ofNullable(core.runningSince.get(key));
        }

        @Override
        public RunTimeHints runTime(JobKey key) {
            JobObservation held = core.heldObservation(key);
            return held == null ? RunTimeHints.NONE : held.runTime();
        }

        @Override
        public CycleResult cycle() {
            CycleResult result = core.schedule();
            for (Admission a : result.admissions()) {
                JobObservation held = core.heldObservation(a.key());
                String v = Long.toString(version++);
                core.settle(a.key(), a.record(), new AdmissionOutcome.Applied(v));
                if (held != null) {
                    core.observe(new JobObservation(held.key(), held.uid(), JobObservation.Phase.ADMITTED,
                            held.request(), held.priority(), held.createdAt(), held.quotaName(), held.preemptible(),
                            a.record(), v, held.stoppable(), held.evictions(), JobObservation.Pods.NONE,
                            a.request(), held.runTime()));
                }
                core.podRan(a.key());
            }
            for (Eviction e : result.evictions()) {
                JobObservation held = core.heldObservation(e.key());
                String v = Long.toString(version++);
                Eviction written = e.writtenAt(clock.instant());
                core.settleEviction(e.key(), e.record(), new EvictionOutcome.Applied(v, clock.instant()));
                if (held != null) {
                    core.observe(new JobObservation(held.key(), held.uid(), JobObservation.Phase.QUEUED,
                            held.request(), held.priority(), held.createdAt(), held.quotaName(), held.preemptible(),
                            held.record(), v, held.stoppable(), written.history(), JobObservation.Pods.NONE,
                            held.admittedRequest(), held.runTime()));
                }
            }
            return result;
        }

        @Override
        public void end(JobKey key) {
            JobObservation held = core.heldObservation(key);
            core.observe(JobObservation.finished(key, held == null ? null : held.uid()));
        }

        @Override
        public Optional<Instant> nextRetry() {
            return core.nextRetry();
        }

        @Override
        public QuotaTree tree() {
            return core.tree();
        }

        @Override
        public Duration maxBackoff() {
            return core.settings().maxBackoff();
        }

        @Override
        public List<PendingView> pending() {
            return core.pendingIn(null);
        }

        @Override
        public void submit(JobObservation job) {
            core.observe(job);
        }

        @Override
        public void replaceTree(QuotaTree tree) {
            core.replaceTree(tree);
        }
    }

    /**
     * A job whose request cannot be read (docs/behaviour.md §2). A suspended one leaves the queue; an admitted or
     * running one is never uncharged for it: it keeps its last known charge, or, if none is known (seen first this
     * way, e.g. after a restart), it is charged as unknown until it ends or can be read: its own group admits nothing
     * more, and the groups above count its subtree at the most their limits let it use (see UnknownUse).
     *
     * @param observation the job as seen, its request ignored ({@link Resources#NONE})
     * @return what was done, for the Warning event
     * @throws IllegalArgumentException for a finished job, which has no request to read
     */
    @Override
    public synchronized Unreadable observeUnreadable(JobObservation observation) {
        changes++;
        return observations.observeUnreadable(observation);
    }

    /**
     * Replaces the quota groups. Usage is recomputed from the admitted jobs: each stays charged to the group
     * its record names or, if that group no longer exists (renamed, moved), to the group its namespace or
     * label resolves to now, so a renamed group never forgets what runs in it. Admitted jobs are never
     * touched, even when the new tree leaves a group above its max. Every pending job is re-resolved and made
     * active again, so held and backed-off jobs get a fresh chance at once.
     */
    @Override
    public synchronized void replaceTree(QuotaTree newTree) {
        changes++;
        ledger.replaceTree(newTree, queues.admitted());
        queues.requeueAllPending();
        reclaims.abandonAll();
        evictions.treeReplaced();
        policy.forgetReleases();
    }

    /**
     * Replaces the PriorityClasses every job's priority is resolved with; pending jobs whose priority changes
     * move to their new place at once (a class created after its jobs re-orders them). O(jobs): classes
     * change rarely.
     */
    @Override
    public synchronized void replacePriorityClasses(PriorityClasses classes) {
        queues.replacePriorityClasses(classes);
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
        ledger.setExternalUsage(group, used, ledger.externalRecountTicket(group));
    }

    /**
     * The ticket a recount of the group's outside usage takes before it reads the cluster; see
     * {@link #setExternalUsage(String, Resources, long)}.
     */
    @Override
    public synchronized long externalRecountTicket(String group) {
        return ledger.externalRecountTicket(group);
    }

    /**
     * As {@link #setExternalUsage(String, Resources)}, but ignored if a job's charge moved to the group's outside
     * usage after the recount took its {@code ticket}: that recount may have read the job as still admitted,
     * and a newer one is already on its way.
     */
    @Override
    public synchronized void setExternalUsage(String group, Resources used, long ticket) {
        ledger.setExternalUsage(group, used, ticket);
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
    @Override
    public synchronized void trackExternalUsage(Consumer<String> recount) {
        ledger.trackExternalUsage(recount);
    }

    /**
     * Runs one scheduling cycle: moves expired backoffs back to their queues, then tries jobs in queue order
     * across all groups (see {@link SchedulingCycle} for what each policy does with a job that does not fit).
     * Every admission returned is already charged.
     */
    @Override
    public synchronized CycleResult schedule() {
        CycleResult result = cycle.run();
        if (!result.isEmpty()) {
            changes++;
        }
        return result;
    }

    /**
     * Whether backed-off jobs that wait alike wait as one ({@code BackoffWave}); on unless turned off here. Off, each
     * waits alone, as before issue 27: the reference a property test compares every decision with. Before any job.
     */
    synchronized void waitInWaves(boolean on) {
        queues.waitInWaves(on);
    }

    /** For tests of what the core shares: the observation it holds of a job, or null. */
    synchronized JobObservation heldObservation(JobKey key) {
        JobEntry entry = queues.get(key);
        return entry == null ? null : entry.job();
    }

    /** For tests of what the core holds per job: whether the job's entry holds the fields few jobs set. */
    synchronized boolean holdsExtras(JobKey key) {
        JobEntry entry = queues.get(key);
        return entry != null && entry.holdsExtras();
    }

    /** For tests of what the core shares: the eviction marks it holds of a job (its own count), or null. */
    synchronized EvictionMarks heldMarks(JobKey key) {
        JobEntry entry = queues.get(key);
        return entry == null ? null : entry.marks();
    }

    /** For tests: how many backoff waves wait (see {@code BackoffWave}). */
    synchronized int backoffWaves() {
        return queues.waveCount();
    }

    /** For tests: what breaks the rules of backoff waves (see {@link QueueManager#wavesBroken}), or null. */
    synchronized String backoffWavesBroken() {
        return queues.wavesBroken();
    }

    /** What the last cycle touched one by one (see {@link SchedulingCycle#lastVisits}); for tests that count cost. */
    synchronized int lastCycleVisits() {
        return cycle.lastVisits();
    }

    /**
     * Settles one admission this scheduler decided with what became of it (see {@link AdmissionOutcome} for each
     * case). Ignored if the job has moved on (another admission record).
     *
     * @param key     the job
     * @param record  the record the admission would write
     * @param outcome what became of it
     * @return for {@link AdmissionOutcome.StartedByHand}, the started-outside record now held, to write on the job;
     *         empty otherwise, or if the job has moved on or was suspended again since
     */
    @Override
    public synchronized Optional<AdmissionRecord> settle(JobKey key, AdmissionRecord record, AdmissionOutcome outcome) {
        changes++;
        Optional<AdmissionRecord> settled = settlements.settle(key, record, Objects.requireNonNull(outcome, "outcome"));
        JobEntry entry = queues.get(key);
        if (learns && outcome instanceof AdmissionOutcome.Applied && entry != null
                && entry.state() == JobState.ADMITTED && record.equals(entry.record())) {
            runningSince.put(key, clock.instant());
            if (runningSince.size() > sweepRunningSinceAt) {
                // released without being seen (a victim's pods gone): their times go in one sweep, amortised O(1)
                runningSince.keySet().removeIf(k -> queues.get(k) == null
                        || queues.get(k).state() != JobState.ADMITTED);
                sweepRunningSinceAt = Math.max(1024, 2 * runningSince.size());
            }
        } else if (!(outcome instanceof AdmissionOutcome.Applied)) {
            runningSince.remove(key);
        }
        return settled;
    }

    /**
     * The admission of this job whose answer was lost ({@link AdmissionOutcome#UNKNOWN}), if any. A new copy of
     * the job, still suspended and without our record, is the cue to read it back now: the copy alone cannot
     * say "not applied", since the patch may still land (the API server can apply it after the client gave up); the
     * admission side settles it only by a read that shows a newer version than the patch tests, or once the
     * server's request timeout has passed (docs/behaviour.md, "An ambiguous answer").
     *
     * @return the admission as decided (uid, record, charged request), to read back
     */
    @Override
    public synchronized Optional<Admission> unconfirmedAdmission(JobKey key) {
        return Optional.ofNullable(observations.unconfirmedAdmission(key));
    }

    /**
     * Rebinds an admission on its way to a newer copy of its job, if the decision still stands for it: the copy at
     * {@code version}, seen while the admission was on its way, is of the same object, still queued, and would be
     * charged and placed alike (request, preemptibility, quota label, priority). The admission is then held as made
     * on that copy (its patch tests that version instead): a write that changes nothing the decision read (a status
     * write, an annotation of someone else's) costs no refusal. Else nothing changes and the patch, bound to the
     * version decided on, is handed back as refused.
     *
     * @return whether the admission now stands for the copy at {@code version}
     */
    @Override
    public synchronized boolean rebind(JobKey key, AdmissionRecord record, String version) {
        return settlements.rebind(key, record, version);
    }

    /**
     * Whether this admission's outcome is still unknown: the admission side keeps re-reading the job while it is,
     * and stops once anything settled it.
     */
    @Override
    public synchronized boolean admissionUnsettled(JobKey key, AdmissionRecord record) {
        return settlements.unsettled(key, record);
    }

    /**
     * Settles one eviction this scheduler decided with what became of the write (see {@link EvictionOutcome}).
     * Ignored if the job has moved on (no longer admitted under that record).
     */
    @Override
    public synchronized void settleEviction(JobKey key, AdmissionRecord record, EvictionOutcome outcome) {
        changes++;
        evictions.settle(key, record, Objects.requireNonNull(outcome, "outcome"));
    }

    /** Whether this eviction's outcome is still unknown: the admission side re-reads the job while it is. */
    @Override
    public synchronized boolean evictionUnsettled(JobKey key, AdmissionRecord record) {
        return evictions.unsettled(key, record);
    }

    /**
     * A pod of this job runs, or has run (phase Running, Succeeded or Failed, and not being deleted): its admission
     * can no longer time out. Ignored unless the job is admitted. The first time under an admission whose group has
     * an admission timeout, and if the job does not carry the mark yet, the admission is handed to
     * {@link #writePodRanMarksTo} (docs/policies.md, "Admission timeout": the mark keeps it across a restart).
     */
    @Override
    public synchronized void podRan(JobKey key) {
        Admission mark = evictions.podRan(key);
        if (mark != null) {
            podRanMarks.accept(mark);
        }
    }

    /**
     * Where the admissions whose pod-ran mark is to be written go ({@link #podRan}); by default nowhere.
     *
     * @param marks called with the scheduler's lock held: it must only hand the work on, never call back
     */
    public synchronized void writePodRanMarksTo(Consumer<Admission> marks) {
        podRanMarks = Objects.requireNonNull(marks, "marks");
    }

    /**
     * The pods of admitted jobs have been listed: admission timeouts are decided from now on (before, a job whose
     * pod runs might not be known to run yet); every evicted job whose pods were draining is checked again.
     *
     * @return whether a charge was released (a cycle should follow)
     */
    public synchronized boolean podsListed() {
        evictions.podsListed();
        return observations.recheckDraining();
    }

    /**
     * Where the core asks whether pods of a job are left, running or terminating (not Succeeded or Failed, deletion
     * timestamp or not); it must answer true while it cannot tell (pods not listed yet, the watch down). Called with
     * the scheduler's lock held: it must only read (a cache), never call back. Until it is set, no pods are known.
     * An evicted job seen suspended keeps its charge while its pods are left or its kind's status counts some active
     * ({@link JobObservation.Pods#active()}); docs/policies.md, "When a victim's room is free".
     */
    public synchronized void watchPods(java.util.function.Predicate<JobKey> podsLeft) {
        evictions.watchPods(Objects.requireNonNull(podsLeft, "podsLeft"));
    }

    /**
     * A pod of this job was added, changed or deleted: an evicted job waiting for its pods to go is released once
     * none is left.
     *
     * @return whether its charge was released (a cycle should follow)
     */
    public synchronized boolean podsChanged(JobKey key) {
        return observations.podsChanged(key);
    }

    /**
     * When the next backoff expires or the next admission times out, so the caller knows when to run the next cycle
     * without a new event.
     */
    @Override
    public synchronized Optional<Instant> nextRetry() {
        Optional<Instant> retry = queues.nextRetry();
        Optional<Instant> timeout = evictions.nextTimeout();
        if (retry.isEmpty()) {
            return timeout;
        }
        return timeout.isPresent() && timeout.get().isBefore(retry.get()) ? timeout : retry;
    }

    /**
     * Whether the scheduler manages this job: it holds it, or withdrew it from the queue because its request could
     * not be read (so that it is charged if it is then started by hand).
     */
    @Override
    public synchronized boolean manages(JobKey key) {
        return observations.manages(key);
    }

    /** One job's state, or empty if the scheduler does not know it (never managed, or finished). */
    @Override
    public synchronized Optional<JobStatus> status(JobKey key) {
        JobEntry entry = queues.get(key);
        return entry == null ? Optional.empty() : Optional.of(entry.status());
    }

    /** Every job the scheduler holds, in no particular order. */
    @Override
    public synchronized List<JobStatus> jobs() {
        List<JobStatus> all = new ArrayList<>();
        for (JobEntry entry : queues.all()) {
            all.add(entry.status());
        }
        return all;
    }

    /** The usage of one group by admitted jobs (including its descendants'); {@link Resources#NONE} if none. */
    public synchronized Resources usage(String group) {
        return ledger.usage(group);
    }

    /** The part of {@link #usage} held by non-preemptible jobs, which {@code min} limits. */
    public synchronized Resources guaranteedUsage(String group) {
        return ledger.guaranteedUsage(group);
    }

    /** What the group uses outside kube-queue (see {@link #setExternalUsage}). */
    public synchronized Resources externalUsage(String group) {
        return ledger.externalUsage(group);
    }

    /** The quota groups in force. */
    @Override
    public synchronized QuotaTree tree() {
        return ledger.tree();
    }

    /** The PriorityClasses in force. */
    @Override
    public synchronized PriorityClasses priorityClasses() {
        return queues.priorityClasses();
    }

    /**
     * Every declared group and every group that has jobs, sorted by name. O(groups × log jobs), from what the core
     * counts per group (never a walk over the jobs: a metrics refresh reads it every second); for an API call, not
     * for the decision path.
     */
    @Override
    public synchronized List<GroupView> groups() {
        return views.groups();
    }

    /** {@link #groups} by a walk over every job, as it was read before issue 27: for tests, which compare the two. */
    synchronized List<GroupView> groupsByWalk() {
        return views.groupsByWalk();
    }

    /**
     * The quota groups whose head — the first pending job in queue order, held jobs aside, backed-off ones
     * included — fits now. Such a head is admitted by the next cycle or, backed off, when its backoff ends (at most
     * {@code kube-queue.backoff.max}); a group that stays in this set for minutes shows admissions that do not happen
     * (metric {@code kube_queue_head_fits}). O(groups × path).
     */
    @Override
    public synchronized Set<String> groupsWhoseHeadFits() {
        return views.groupsWhoseHeadFits();
    }

    /**
     * The pending jobs of one group in queue order, each with its position and the reason it waits; jobs held as
     * never fitting come last. O(jobs of the group × path): for an API call, not for the decision path.
     */
    @Override
    public synchronized List<PendingView> pending(String group) {
        return views.pending(group);
    }

    /**
     * Every pending job of a namespace ({@code null}: of every namespace): jobs in no quota group first (position 0,
     * by key), then each group's in queue order, groups by name. O(jobs + jobs of those groups × path): for an API
     * call, not for the decision path.
     */
    @Override
    public synchronized List<PendingView> pendingIn(String namespace) {
        return views.pendingIn(namespace);
    }

    /** Every job of that namespace and name (one per kind), with its position and reason if it is pending. */
    @Override
    public synchronized List<PendingView> find(String namespace, String name) {
        return views.find(namespace, name);
    }

    /** Evaluates a job as if it were queued now (see {@link DryRun}); the scheduler is not changed. */
    @Override
    public synchronized DryRun dryRun(JobObservation job) {
        return views.dryRun(job);
    }
}
