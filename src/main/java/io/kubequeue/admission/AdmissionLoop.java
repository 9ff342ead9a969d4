package io.kubequeue.admission;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;

import org.jboss.logging.Logger;

import io.kubequeue.concurrent.DaemonThreads;
import io.kubequeue.config.KubeQueueConfig;
import io.kubequeue.config.SettingRanges;
import io.kubequeue.events.EventRecorder;
import io.kubequeue.job.JobDirectory;
import io.kubequeue.job.JobFeed;
import io.kubequeue.scheduler.Cycles;
import io.kubequeue.scheduler.Forecasting;
import io.kubequeue.scheduler.model.Admission;
import io.kubequeue.scheduler.model.CycleResult;
import io.kubequeue.scheduler.model.Eviction;
import io.kubequeue.scheduler.model.JobState;

/**
 * Runs scheduling cycles off the API server's critical path: one thread decides (cheap, in memory) and never
 * waits on the network; the decided admissions go to an {@link AdmissionPipeline} that keeps up to
 * {@code kube-queue.admission.in-flight} patches on the wire without a thread per request, serving quota groups
 * in turn. Each admission's end is reported to the scheduler on one thread ({@code kube-queue-admission}), in
 * one place ({@link Admitter#report}); a cycle's evictions go the same way through {@link EvictionSender}.
 * Triggers coalesce, so a burst of job events costs one cycle, and a timer wakes the loop when the earliest backoff
 * (or admission timeout) expires.
 *
 * <p>The loop stays closed, admitting nothing, until start-up recovery has charged every admitted job
 * ({@link #open()}).
 */
@Singleton
public class AdmissionLoop {

    private static final Logger LOG = Logger.getLogger(AdmissionLoop.class);

    private final Cycles scheduler;
    private final Admitter admitter;
    private final CycleEvents cycleEvents;
    private final QueuedEvents queuedEvents;
    private final ScheduledExecutorService cycles;
    /** Started-outside records: written off the admission path, since they may block. */
    private final StartedOutsideRecords startedOutside;
    /** The one thread that reports admissions' ends to the scheduler (never an HTTP client thread). */
    private final ExecutorService outcomes;
    private final WriteSender<Admission, Admitter.Settlement> admissions;
    private final EvictionSender evictions;
    private final PodRanRecords podRanMarks;
    private final AtomicBoolean cyclePending = new AtomicBoolean();
    /** A cycle asked for by a release is on the cycle thread's queue (without the batch window). */
    private final AtomicBoolean releaseCycleQueued = new AtomicBoolean();
    /**
     * Numbers the windowed cycles asked for: a windowed task whose cycle already ran (a release ran it early) does
     * nothing, so a later change gets a whole window of its own instead of the rest of the earlier one.
     */
    private final AtomicLong window = new AtomicLong();
    private final long batchWindowMillis;
    private volatile boolean open;
    private ScheduledFuture<?> wakeUp;
    private Instant wakeUpAt;

    public AdmissionLoop(Cycles scheduler, Admitter admitter, Evicter evicter, JobDirectory directory,
                         EventRecorder events, KubeQueueConfig config) {
        this(scheduler, null, admitter, evicter, directory, events, config);
    }

    /**
     * @param forecasts the start-time estimates, whose unblock hint ends each {@code Pending} event (computed on the
     *                  cycle thread after the cycle's admissions are handed to the pipeline, as the event's reason
     *                  is); null, or {@code kube-queue.estimates.enabled=false}: no hint
     */
    @jakarta.inject.Inject
    public AdmissionLoop(Cycles scheduler, Forecasting forecasts, Admitter admitter, Evicter evicter,
                         JobDirectory directory, EventRecorder events, KubeQueueConfig config) {
        this.scheduler = scheduler;
        this.admitter = admitter;
        this.cycleEvents = forecasts == null || !config.estimates().enabled() ? new CycleEvents(directory, events)
                : new CycleEvents(directory, events, forecasts::unblock);
        this.queuedEvents = new QueuedEvents(directory, events, key -> scheduler.status(key)
                .map(s -> s.state() != JobState.ADMITTED).orElse(false));
        SettingRanges.WORKERS.check(config.admission().workers());
        SettingRanges.BATCH_WINDOW.check(config.admission().batchWindow());
        SettingRanges.IN_FLIGHT.check(config.admission().inFlight());
        this.batchWindowMillis = config.admission().batchWindow().toMillis();
        this.cycles = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("kube-queue-scheduler"));
        this.startedOutside = new StartedOutsideRecords(scheduler, admitter, config.admission().workers());
        this.outcomes = Executors.newSingleThreadExecutor(DaemonThreads.named("kube-queue-admission"));
        this.admissions = new WriteSender<>(new AdmissionWrites(), config.admission().inFlight(),
                admission -> admission.record().group(), cycles, outcomes, () -> open);
        this.evictions = new EvictionSender(evicter, config.admission().inFlight(), cycles, outcomes, () -> open,
                this::trigger, scheduler.clock(), this::tell);
        events.sendAfter(admissions::backlog); // events wait while decided admissions wait (docs/observability.md)
        this.podRanMarks = new PodRanRecords(admitter::recordPodRan, mark -> scheduler.status(mark.key())
                .map(s -> s.state() == JobState.ADMITTED && mark.record().equals(s.record())).orElse(false),
                admissions::backlog, () -> open, cycles);
    }

    /** Starts admitting. Called once recovery is done. */
    public void open() {
        openIf(() -> true);
    }

    /**
     * Starts admitting if {@code stillLeading} holds, checked under the same lock {@link #close()} takes, so a
     * loss of leadership between the check and the opening cannot leave the loop open.
     */
    public synchronized void openIf(java.util.function.BooleanSupplier stillLeading) {
        if (!stillLeading.getAsBoolean()) {
            return;
        }
        open = true;
        LOG.info("admission loop open");
        startedOutside.writeDeferred();
        podRanMarks.sendNext();
        trigger();
    }

    /**
     * Stops admitting (this replica no longer leads): no new cycle runs, and admissions and evictions decided but not
     * yet sent are handed back (settled refused) instead of written. A patch already on the wire completes.
     */
    public synchronized void close() {
        open = false;
        queuedEvents.clear();
        int unsent = admissions.close(); // leadership lost: the next leader decides anew
        LOG.infof("admission loop closed (%d decided admissions, %d evictions handed back unsent)", unsent,
                evictions.close());
    }

    /** Closes the loop and waits, at most {@code wait}, for the patches already sent to settle (shutdown). */
    public void drain(Duration wait) {
        long deadline = System.nanoTime() + wait.toNanos();
        close();
        try {
            admissions.awaitIdle(wait);
            evictions.awaitIdle(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
            outcomes.shutdown();
            outcomes.awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            startedOutside.awaitWritten(Math.max(0, deadline - System.nanoTime()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Says a job's {@code Queued} event once the cycle that first sees it has run, and only if it is still pending
     * then ({@link QueuedEvents}); the feed calls it for each queueing (through
     * {@link FeedToAdmission#deferQueuedEvent}). Nothing is
     * kept while the loop is closed (a follower writes no Normal events). Returns at once.
     */
    public void queuedEvent(io.kubequeue.scheduler.model.JobKey job, String message) {
        if (open) {
            queuedEvents.queued(job, message);
        }
    }

    /** Admissions on the wire (sent, not yet settled), for metrics. */
    public int admissionsInFlight() {
        return admissions.inFlight();
    }

    /** Admissions decided and waiting for room in the pipeline, for metrics. */
    public int admissionsWaitingToBeSent() {
        return admissions.backlog();
    }

    /** Whether recovery is done and admissions are being decided. */
    public boolean isOpen() {
        return open;
    }

    /**
     * Asks for a cycle after the batch window; every call until it runs joins the same cycle, so jobs
     * submitted together are ordered by the queue, not by which reconcile thread came first.
     */
    public void trigger() {
        if (open && cyclePending.compareAndSet(false, true)) {
            long mine = window.incrementAndGet();
            cycles.schedule(() -> {
                if (window.get() == mine) {
                    cycleIfAsked();
                }
            }, batchWindowMillis, TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Asks for a cycle as soon as the cycle thread is free, without the batch window: room was released (a job
     * finished or was deleted) and the jobs it may go to are already queued, so waiting would only leave it idle
     * (at 150 admissions a second the window kept each job's quota ~100 ms longer, docs/performance.md). Calls
     * made until it runs, and a windowed cycle pending, join it.
     */
    public void triggerAtOnce() {
        if (!open) {
            return;
        }
        cyclePending.set(true);
        if (releaseCycleQueued.compareAndSet(false, true)) {
            cycles.execute(() -> {
                releaseCycleQueued.set(false);
                cycleIfAsked();
            });
        }
    }

    /** Runs the cycle asked for, unless an earlier task already ran it (only the cycle thread calls this). */
    private void cycleIfAsked() {
        if (cyclePending.get()) {
            cycle();
        }
    }

    private void cycleNow() {
        // this task is the pending wake-up: forget it, so the cycle can schedule the next one
        wakeUp = null;
        wakeUpAt = null;
        if (open && cyclePending.compareAndSet(false, true)) {
            cycle();
        }
    }

    /** What the loop reports, for metrics: each cycle as it ends, each admission and eviction once written. */
    public interface Listener {
        /**
         * @param result        what the cycle decided
         * @param durationNanos how long the decision took
         */
        void cycle(CycleResult result, long durationNanos);

        /** An admission the API server applied. */
        default void admitted(Admission admission) {
        }

        /** An eviction the API server applied (the job is suspended; its quota is released once seen so). */
        default void evicted(Eviction eviction) {
        }

        /** A reclaim a cycle started, with its victims (each also an eviction of that cycle). */
        default void reclaimStarted(CycleResult.Reclaim reclaim) {
        }

        /**
         * The API server's answer to one admission patch, however it ended.
         *
         * @param kind         how it ended ({@link Admitter.Settlement.Kind})
         * @param answerNanos  from sending the patch to its answer (a read-back included, if one was needed)
         */
        default void answered(Admitter.Settlement.Kind kind, long answerNanos) {
        }
    }

    private volatile Listener listener = (result, durationNanos) -> {
    };

    /** Tells the listener (metrics); one that fails is logged at DEBUG: metrics never hold up an admission. */
    private void tell(java.util.function.Consumer<Listener> call) {
        try {
            call.accept(listener);
        } catch (RuntimeException e) {
            LOG.debug("metrics listener failed", e);
        }
    }

    /** Sets the one listener (metrics). */
    public void listener(Listener listener) {
        this.listener = listener;
    }

    private void cycle() {
        cyclePending.set(false);
        if (!open) {
            return; // closed (no longer leading) after this cycle was asked for
        }
        try {
            long cycleNumber = queuedEvents.cycleStarts();
            long start = System.nanoTime();
            CycleResult result = scheduler.schedule();
            long decided = System.nanoTime() - start;
            admissions.submit(result.admissions());
            evictions.send(result);
            queuedEvents.cycleEnded(cycleNumber, result); // before Pending: a job is told Queued first
            cycleEvents.write(result);
            scheduler.nextRetry().ifPresent(this::wakeUpAt);
            if (result.failure() != null) {
                // its admissions and evictions were handed out above all the same
                LOG.error("scheduling cycle failed after " + result.admissions().size() + " admissions, all sent;"
                        + " the rest is decided in 1 s", result.failure());
                wakeUpAt(Instant.now().plusSeconds(1));
            }
            tell(l -> l.cycle(result, decided)); // last
        } catch (RuntimeException e) {
            LOG.error("scheduling cycle failed; retrying in 1 s", e);
            wakeUpAt(Instant.now().plusSeconds(1));
        }
    }

    /** Admissions through the {@link WriteSender}: what the loop does with each answer. */
    private final class AdmissionWrites implements WriteSender.Writes<Admission, Admitter.Settlement> {

        @Override
        public String what() {
            return "admission";
        }

        @Override
        public io.kubequeue.scheduler.model.JobKey key(Admission admission) {
            return admission.key();
        }

        @Override
        public java.util.concurrent.CompletableFuture<Admitter.Settlement> send(Admission admission) {
            return admitter.admit(admission);
        }

        /** The leader may fence a lost patch (send it again, bound to the same version); a follower only reads. */
        @Override
        public java.util.concurrent.CompletableFuture<Admitter.Settlement> recheck(Admission admission,
                                                                                   boolean leading) {
            return admitter.recheck(admission, leading);
        }

        @Override
        public void report(Admission admission, Admitter.Settlement settlement) {
            admitter.report(admission, settlement, AdmissionLoop.this::recordStartedOutside);
        }

        @Override
        public Admitter.Settlement handedBack() {
            return Admitter.Settlement.of(Admitter.Settlement.Kind.REFUSED);
        }

        @Override
        public boolean unknown(Admitter.Settlement settlement) {
            return settlement.kind() == Admitter.Settlement.Kind.UNCONFIRMED;
        }

        @Override
        public void answered(Admission admission, Admitter.Settlement settlement, long answerNanos) {
            tell(l -> l.answered(settlement.kind(), answerNanos));
        }

        @Override
        public void settled(Admission admission, Admitter.Settlement settlement, boolean reread) {
            if (reread) {
                trigger(); // known at last: a charge handed back frees room
            } else if (settlement.kind() == Admitter.Settlement.Kind.APPLIED) {
                listener.admitted(admission);
            } else if (settlement.kind() == Admitter.Settlement.Kind.OUTDATED
                    || settlement.kind() == Admitter.Settlement.Kind.OUTDATED_UNSENT) {
                // the job changed since the decision: it is decided again on its new copy, without backoff
                trigger();
                cycles.execute(() -> scheduler.nextRetry().ifPresent(AdmissionLoop.this::wakeUpAt));
            } else {
                // a refused admission backs off: make sure a wake-up is set for it (on the cycle thread)
                cycles.execute(() -> scheduler.nextRetry().ifPresent(AdmissionLoop.this::wakeUpAt));
            }
        }

        @Override
        public void settledMeanwhile(Admission admission) {
            trigger();
        }
    }

    private void wakeUpAt(Instant at) {
        if (wakeUp != null && !wakeUp.isDone() && wakeUpAt != null && !at.isBefore(wakeUpAt)) {
            return;
        }
        if (wakeUp != null) {
            wakeUp.cancel(false);
        }
        wakeUpAt = at;
        Duration until = Duration.between(Instant.now(), at);
        // a retry or timeout at the end of time (the core saturates there) must not overflow the delay
        long delay = until.getSeconds() >= Long.MAX_VALUE / 2000 ? Long.MAX_VALUE / 2 : Math.max(0, until.toMillis());
        // a backoff expiry needs no batch window: nothing else is coming that it should wait for
        wakeUp = cycles.schedule(this::cycleNow, delay, TimeUnit.MILLISECONDS);
    }

    @PreDestroy
    void stop() {
        open = false;
        cycles.shutdownNow();
        outcomes.shutdown();
        startedOutside.stop();
    }

    /**
     * Has the pod-ran mark of this admission written on its job ({@link PodRanRecords}: only while no admission waits
     * for the pipeline); returns at once, and may be called under the scheduler's lock. A follower keeps it until it
     * leads.
     */
    public void recordPodRan(Admission admission) {
        podRanMarks.record(admission);
    }

    /**
     * Has the charge of a job started outside kube-queue written on it ({@link StartedOutsideRecords}); returns at
     * once. A follower keeps it until it leads.
     */
    public void recordStartedOutside(JobFeed.StartedOutside started) {
        startedOutside.record(started, open);
    }

    /**
     * Reads the job of an unconfirmed admission back now, without waiting for it (a new copy of it arrived: see
     * {@link io.kubequeue.scheduler.Scheduler#unconfirmedAdmission}); returns at once. If the read fails too, the
     * re-reads on a backoff go on (1 s doubling to {@link #MAX_RECHECK_BACKOFF}, {@link WriteSender}); the charge
     * stays meanwhile, so quota is never over-admitted. A follower re-checks too: it only reads, and its scheduler
     * must match the cluster when it leads.
     */
    public void recheckNow(Admission admission) {
        admissions.recheckNow(admission);
    }

    /** The longest wait between two re-reads of a job whose admission (or eviction) is unconfirmed. */
    static final Duration MAX_RECHECK_BACKOFF = Duration.ofSeconds(30);

    /** The wait before re-read number {@code attempt} (from 1): 1 s doubling to {@link #MAX_RECHECK_BACKOFF}. */
    static long recheckDelayMillis(int attempt) {
        return Math.min(MAX_RECHECK_BACKOFF.toMillis(), 1000L << Math.min(attempt - 1, 10));
    }
}
