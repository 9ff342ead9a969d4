package io.kubequeue.admission;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

import org.jboss.logging.Logger;

import io.kubequeue.scheduler.CycleResult;
import io.kubequeue.scheduler.Eviction;
import io.kubequeue.scheduler.EvictionOutcome;

/**
 * The admission loop's side that writes evictions: takes each cycle's reclaims and evictions ({@link #send}), tells
 * the listener that a reclaim started ({@link CycleEvents} tells the preemptor), sends the evictions through a pipeline of their own (at
 * most {@code inFlight} on the wire, quota groups in turn, no thread held while one waits), reports each answer on
 * the loop's report thread ({@link Evicter#report}: one {@code settleEviction} each), re-reads an unknown one (1 s
 * doubling to {@link AdmissionLoop#MAX_RECHECK_BACKOFF}) until it is known or the scheduler no longer waits for it,
 * and asks for a cycle once one settles (a refused reclaim is given up, and the core may decide anew; the victims
 * seen suspended reach the scheduler through the informer, which asks for its own cycle). Evictions not yet sent
 * when the loop closes (leadership lost) are settled {@link EvictionOutcome#REFUSED} ({@link #close}).
 */
final class EvictionSender {

    private static final Logger LOG = Logger.getLogger(EvictionSender.class);

    private final Evicter evicter;
    private final AdmissionPipeline<Eviction> pipeline;
    private final ScheduledExecutorService timers;
    private final Executor reports;
    private final BooleanSupplier open;
    private final Runnable settledOne;
    private final Consumer<Consumer<AdmissionLoop.Listener>> tell;
    private final Clock clock;

    /**
     * @param evicter    writes and reports each eviction
     * @param inFlight   the most evictions on the wire at once; at least 1
     * @param timers     runs the re-reads of unknown outcomes after their backoff
     * @param reports    the one thread answers are reported on (never an HTTP client thread)
     * @param open       whether the loop still admits (leads); checked right before each eviction is sent
     * @param settledOne asks for a cycle
     * @param clock      stamps each eviction with the time it is sent ({@link Eviction#writtenAt}): the clock the
     *                   scheduler decided it by ({@link io.kubequeue.scheduler.Scheduler#clock})
     * @param tell       tells the loop's listener (metrics), which must never fail the caller
     */
    EvictionSender(Evicter evicter, int inFlight, ScheduledExecutorService timers, Executor reports,
                   BooleanSupplier open, Runnable settledOne, Clock clock,
                   Consumer<Consumer<AdmissionLoop.Listener>> tell) {
        this.clock = clock;
        this.evicter = evicter;
        this.pipeline = new AdmissionPipeline<>(inFlight, eviction -> eviction.record().group(), this::sendOne);
        this.timers = timers;
        this.reports = reports;
        this.open = open;
        this.settledOne = settledOne;
        this.tell = tell;
    }

    /** Starts what a cycle decided: tells the listener of its reclaims, then sends its evictions. Returns at once. */
    void send(CycleResult result) {
        for (CycleResult.Reclaim reclaim : result.reclaims()) {
            tell.accept(listener -> listener.reclaimStarted(reclaim));
        }
        pipeline.submit(result.evictions());
    }

    /**
     * The loop closed (no longer leading): every eviction not yet sent is settled refused, so its job stays admitted
     * and the next leader decides again. Those on the wire complete.
     *
     * @return how many were settled so
     */
    int close() {
        List<Eviction> unsent = pipeline.withdrawBacklog();
        unsent.forEach(eviction -> evicter.report(eviction, EvictionOutcome.REFUSED));
        return unsent.size();
    }

    /** Evictions sent and not yet answered. */
    int inFlight() {
        return pipeline.inFlight();
    }

    /** Waits, at most {@code wait}, until no eviction is on the wire (shutdown). */
    void awaitIdle(Duration wait) throws InterruptedException {
        pipeline.awaitIdle(wait);
    }

    /**
     * Sends one eviction (called by the pipeline); the stage completes once its answer is reported. Never throws.
     * The eviction is stamped with the time it is sent: a victim counts from its suspension, not from a decision that
     * waited behind others on the wire, and the job, the report and any re-read carry that one time.
     */
    private CompletionStage<?> sendOne(Eviction decided) {
        if (!open.getAsBoolean()) {
            evicter.report(decided, EvictionOutcome.REFUSED); // leadership lost since the decision
            return CompletableFuture.completedFuture(null);
        }
        Eviction eviction = decided.writtenAt(clock.instant());
        try {
            return evicter.evict(eviction).thenAcceptAsync(outcome -> finish(eviction, outcome, 1), reports)
                    .exceptionally(e -> {
                        LOG.errorf(e, "reporting the eviction of %s failed", eviction.key());
                        return null;
                    });
        } catch (RuntimeException e) {
            LOG.errorf(e, "sending the eviction of %s failed; it stays admitted", eviction.key());
            evicter.report(eviction, EvictionOutcome.REFUSED);
            return CompletableFuture.completedFuture(null);
        }
    }

    /** Reports one answer (on the report thread) and acts on it; {@code attempt} numbers the reads of an unknown one. */
    private void finish(Eviction eviction, EvictionOutcome outcome, int attempt) {
        evicter.report(eviction, outcome);
        if (outcome instanceof EvictionOutcome.Applied) {
            tell.accept(listener -> listener.evicted(eviction));
        }
        if (outcome instanceof EvictionOutcome.Unknown) {
            recheckLater(eviction, attempt);
        } else {
            settledOne.run();
        }
    }

    /** Reads the job of an unknown eviction again after a backoff: 1 s for the first re-read, doubling. */
    private void recheckLater(Eviction eviction, int attempt) {
        try {
            timers.schedule(() -> recheck(eviction, attempt), AdmissionLoop.recheckDelayMillis(attempt),
                    TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            LOG.debugf("shutting down: the eviction of %s stays unconfirmed; the next start reads the job", eviction.key());
        }
    }

    private void recheck(Eviction eviction, int attempt) {
        try {
            evicter.recheck(eviction).thenAcceptAsync(outcome -> {
                if (outcome == null) {
                    settledOne.run(); // settled meanwhile (an observation of the job)
                } else {
                    finish(eviction, outcome, attempt + 1);
                }
            }, reports).exceptionally(e -> {
                LOG.errorf(e, "re-reading the unconfirmed eviction of %s failed", eviction.key());
                return null;
            });
        } catch (RejectedExecutionException e) {
            LOG.debugf("shutting down: the eviction of %s stays unconfirmed; the next start reads the job", eviction.key());
        }
    }
}
