package io.kubequeue.admission;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

import org.jboss.logging.Logger;

import io.kubequeue.scheduler.model.JobKey;

/**
 * Sends one kind of decided write that changes whether a job runs (admissions, evictions: each through
 * {@link SuspendWrites}) and settles each exactly once. The same for both kinds:
 * <ul>
 *   <li>decisions go through a pipeline of their own ({@link AdmissionPipeline}: at most {@code inFlight} on the wire,
 *       quota groups in turn, no thread held while one waits);</li>
 *   <li>one decided while this replica led, and not sent before it stopped leading, is handed back unsent
 *       ({@link Writes#handedBack}), as is one whose sending throws;</li>
 *   <li>each answer is reported on the one report thread ({@link Writes#report}: one settle each), never on an HTTP
 *       client thread;</li>
 *   <li>an unknown outcome (the answer and its read-back both lost) is read again after 1 s, doubling to
 *       {@link AdmissionLoop#MAX_RECHECK_BACKOFF}, until it is known or nothing is left to settle.</li>
 * </ul>
 *
 * @param <D> the decision ({@link io.kubequeue.scheduler.model.Admission}, {@link io.kubequeue.scheduler.model.Eviction})
 * @param <O> its one outcome type
 */
final class WriteSender<D, O> {

    private static final Logger LOG = Logger.getLogger(WriteSender.class);

    /** What the sender needs of one kind of write. */
    interface Writes<D, O> {

        /** What the write is called in log lines ("admission", "eviction"). */
        String what();

        /** The job a decision is about. */
        JobKey key(D decision);

        /** The decision as it is sent (an eviction is stamped with the time it is written); the default: as decided. */
        default D asSent(D decided) {
            return decided;
        }

        /** Sends it through the write path; the future never completes exceptionally. */
        CompletableFuture<O> send(D sent);

        /**
         * Reads the job of an unknown outcome again; null when nothing is left to settle.
         *
         * @param leading whether this replica leads (and so may write to settle it)
         */
        CompletableFuture<O> recheck(D sent, boolean leading);

        /** Tells the scheduler the outcome: exactly once per answer. */
        void report(D sent, O outcome);

        /** The outcome of a decision handed back unsent. */
        O handedBack();

        /** Whether the outcome is unknown, to be read again. */
        boolean unknown(O outcome);

        /** The first answer came, {@code answerNanos} after sending (before it is reported); the default: nothing. */
        default void answered(D sent, O outcome, long answerNanos) {
        }

        /**
         * A known outcome was reported.
         *
         * @param reread whether a re-read found it (rather than the write's own answer)
         */
        void settled(D sent, O outcome, boolean reread);

        /** A re-read found nothing left to settle (an observation of the job settled it meanwhile). */
        void settledMeanwhile(D sent);
    }

    private final Writes<D, O> writes;
    private final AdmissionPipeline<D> pipeline;
    private final ScheduledExecutorService timers;
    private final Executor reports;
    private final BooleanSupplier open;

    /**
     * @param writes   the kind of write
     * @param inFlight the most decisions on the wire at once; at least 1
     * @param group    the quota group a decision is served in turn with
     * @param timers   runs the re-reads of unknown outcomes after their backoff
     * @param reports  the one thread answers are reported on
     * @param open     whether this replica still writes (leads); checked right before each decision is sent
     */
    WriteSender(Writes<D, O> writes, int inFlight, Function<D, String> group, ScheduledExecutorService timers,
                Executor reports, BooleanSupplier open) {
        this.writes = writes;
        this.pipeline = new AdmissionPipeline<>(inFlight, group, this::sendOne);
        this.timers = timers;
        this.reports = reports;
        this.open = open;
    }

    /** Queues decisions (in the scheduler's order); returns at once. */
    void submit(List<D> decisions) {
        pipeline.submit(decisions);
    }

    /**
     * This replica stopped writing: every decision not yet sent is handed back, so the next leader decides again.
     * Those on the wire complete.
     *
     * @return how many were handed back
     */
    int close() {
        List<D> unsent = pipeline.withdrawBacklog();
        unsent.forEach(decision -> writes.report(decision, writes.handedBack()));
        return unsent.size();
    }

    /** Decisions sent and not yet settled. */
    int inFlight() {
        return pipeline.inFlight();
    }

    /** Decisions waiting for room on the wire. */
    int backlog() {
        return pipeline.backlog();
    }

    /** Waits, at most {@code wait}, until nothing is on the wire (shutdown). */
    void awaitIdle(Duration wait) throws InterruptedException {
        pipeline.awaitIdle(wait);
    }

    /**
     * Reads the job of an unknown outcome back now (a new copy of it arrived); if it is still unknown, the re-reads on
     * a backoff go on. Returns at once.
     */
    void recheckNow(D sent) {
        recheck(sent, 0, false);
    }

    /** Sends one decision (called by the pipeline); the stage completes once its answer is reported. Never throws. */
    private CompletionStage<?> sendOne(D decided) {
        if (!open.getAsBoolean()) {
            writes.report(decided, writes.handedBack()); // leadership lost since the decision
            return CompletableFuture.completedFuture(null);
        }
        D sent = writes.asSent(decided);
        try {
            long sentAt = System.nanoTime();
            return writes.send(sent).thenAcceptAsync(outcome -> {
                writes.answered(sent, outcome, System.nanoTime() - sentAt);
                finish(sent, outcome, 1, true, false);
            }, reports).exceptionally(e -> {
                LOG.errorf(e, "reporting the %s of %s failed", writes.what(), writes.key(sent));
                return null;
            });
        } catch (RuntimeException e) {
            LOG.errorf(e, "sending the %s of %s failed; handed back", writes.what(), writes.key(sent));
            writes.report(sent, writes.handedBack());
            return CompletableFuture.completedFuture(null);
        }
    }

    /**
     * Reports one answer (on the report thread) and acts on it.
     *
     * @param attempt the number of the next re-read, should it be unknown
     * @param chain   whether an unknown outcome is read again after a backoff
     */
    private void finish(D sent, O outcome, int attempt, boolean chain, boolean reread) {
        writes.report(sent, outcome);
        if (!writes.unknown(outcome)) {
            writes.settled(sent, outcome, reread);
        } else if (chain) {
            recheckLater(sent, attempt);
        }
    }

    /** Reads the job of an unknown outcome again after a backoff: 1 s for the first re-read, doubling. */
    private void recheckLater(D sent, int attempt) {
        try {
            timers.schedule(() -> recheck(sent, attempt, true), AdmissionLoop.recheckDelayMillis(attempt),
                    TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            LOG.debugf("shutting down: the %s of %s stays unconfirmed; the next start reads the job", writes.what(),
                    writes.key(sent));
        }
    }

    private void recheck(D sent, int attempt, boolean chain) {
        try {
            writes.recheck(sent, open.getAsBoolean()).thenAcceptAsync(outcome -> {
                if (outcome == null) {
                    writes.settledMeanwhile(sent);
                } else {
                    finish(sent, outcome, attempt + 1, chain, true);
                }
            }, reports).exceptionally(e -> {
                LOG.errorf(e, "re-reading the unconfirmed %s of %s failed", writes.what(), writes.key(sent));
                return null;
            });
        } catch (RejectedExecutionException e) {
            LOG.debugf("shutting down: the %s of %s stays unconfirmed; the next start reads the job", writes.what(),
                    writes.key(sent));
        }
    }
}
