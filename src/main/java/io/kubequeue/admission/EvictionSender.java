package io.kubequeue.admission;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

import io.kubequeue.scheduler.model.CycleResult;
import io.kubequeue.scheduler.model.Eviction;
import io.kubequeue.scheduler.model.EvictionOutcome;
import io.kubequeue.scheduler.model.JobKey;

/**
 * The admission loop's side that writes evictions: takes each cycle's reclaims and evictions ({@link #send}), tells
 * the listener that a reclaim started ({@link CycleEvents} tells the preemptor), sends the evictions through a
 * {@link WriteSender} of their own, as admissions are sent (at most {@code inFlight} on the wire, quota groups in
 * turn, no thread held while one waits), reports each answer on
 * the loop's report thread ({@link Evicter#report}: one {@code settleEviction} each), re-reads an unknown one (1 s
 * doubling to {@link AdmissionLoop#MAX_RECHECK_BACKOFF}) until it is known or the scheduler no longer waits for it,
 * and asks for a cycle once one settles (a refused reclaim is given up, and the core may decide anew; the victims
 * seen suspended reach the scheduler through the informer, which asks for its own cycle). Evictions not yet sent
 * when the loop closes (leadership lost) are settled {@link EvictionOutcome#REFUSED} ({@link #close}).
 */
final class EvictionSender {

    private final Evicter evicter;
    private final WriteSender<Eviction, EvictionOutcome> sender;
    private final Consumer<Consumer<AdmissionLoop.Listener>> tell;

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
        this.evicter = evicter;
        this.tell = tell;
        this.sender = new WriteSender<>(new WriteSender.Writes<>() {
            @Override
            public String what() {
                return "eviction";
            }

            @Override
            public JobKey key(Eviction eviction) {
                return eviction.key();
            }

            /**
             * Stamped with the time it is sent: a victim counts from its suspension, not from a decision that waited
             * behind others on the wire, and the job, the report and any re-read carry that one time.
             */
            @Override
            public Eviction asSent(Eviction decided) {
                return decided.writtenAt(clock.instant());
            }

            @Override
            public CompletableFuture<EvictionOutcome> send(Eviction eviction) {
                return evicter.evict(eviction);
            }

            @Override
            public CompletableFuture<EvictionOutcome> recheck(Eviction eviction, boolean leading) {
                return evicter.recheck(eviction);
            }

            @Override
            public void report(Eviction eviction, EvictionOutcome outcome) {
                evicter.report(eviction, outcome);
            }

            @Override
            public EvictionOutcome handedBack() {
                return EvictionOutcome.REFUSED; // the job stays admitted
            }

            @Override
            public boolean unknown(EvictionOutcome outcome) {
                return outcome instanceof EvictionOutcome.Unknown;
            }

            @Override
            public void settled(Eviction eviction, EvictionOutcome outcome, boolean reread) {
                if (outcome instanceof EvictionOutcome.Applied) {
                    tell.accept(listener -> listener.evicted(eviction));
                }
                settledOne.run();
            }

            @Override
            public void settledMeanwhile(Eviction eviction) {
                settledOne.run();
            }
        }, inFlight, eviction -> eviction.record().group(), timers, reports, open);
    }

    /** Starts what a cycle decided: tells the listener of its reclaims, then sends its evictions. Returns at once. */
    void send(CycleResult result) {
        for (CycleResult.Reclaim reclaim : result.reclaims()) {
            tell.accept(listener -> listener.reclaimStarted(reclaim));
        }
        sender.submit(result.evictions());
    }

    /**
     * The loop closed (no longer leading): every eviction not yet sent is settled refused, so its job stays admitted
     * and the next leader decides again. Those on the wire complete.
     *
     * @return how many were settled so
     */
    int close() {
        return sender.close();
    }

    /** Evictions sent and not yet answered. */
    int inFlight() {
        return sender.inFlight();
    }

    /** Waits, at most {@code wait}, until no eviction is on the wire (shutdown). */
    void awaitIdle(Duration wait) throws InterruptedException {
        sender.awaitIdle(wait);
    }
}
