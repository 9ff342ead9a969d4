package io.kubequeue.admission;

import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.IntSupplier;
import java.util.function.Predicate;

import org.jboss.logging.Logger;

import io.kubequeue.collections.BoundedMaps;
import io.kubequeue.scheduler.model.Admission;
import io.kubequeue.scheduler.model.JobKey;

/**
 * The pod-ran marks ({@link PodRanPatch}) waiting to be written, at the lowest priority of kube-queue's writes: one at
 * a time, and only while no decided admission waits for a place in the pipeline ({@link AdmissionPipeline#backlog}),
 * so a mark never takes an admission's place in the API server's write budget (docs/performance.md). A mark waits
 * meanwhile (one per job, the newest kept, bounded); one whose job is no longer admitted under that record when its
 * turn comes is dropped. Only the leader writes; a follower keeps them until it leads.
 *
 * <p>Thread-safe.
 */
final class PodRanRecords {

    private static final Logger LOG = Logger.getLogger(PodRanRecords.class);
    /** Marks kept while waiting; the oldest are dropped first (the job then times out only after a restart). */
    private static final int WAITING_KEPT = 10_000;
    /** How long a mark waits before it looks again whether admissions still wait. */
    private static final long RETRY_MILLIS = 200;

    private final Function<Admission, CompletionStage<?>> write;
    private final Predicate<Admission> current;
    private final IntSupplier admissionsWaiting;
    private final BooleanSupplier leading;
    private final ScheduledExecutorService timer;
    private final Map<JobKey, Admission> waiting = BoundedMaps.keepingNewest(WAITING_KEPT);
    private boolean sending;
    private boolean retryQueued;

    /**
     * @param write             writes one mark ({@link Admitter#recordPodRan}); the stage completes when answered
     * @param current           whether the job is still admitted under the mark's record (asked before the write)
     * @param admissionsWaiting decided admissions waiting for a place in the pipeline
     * @param leading           whether this replica writes now
     * @param timer             where a retry waits (the scheduler's cycle thread: a retry only looks, then sends)
     */
    PodRanRecords(Function<Admission, CompletionStage<?>> write, Predicate<Admission> current,
                  IntSupplier admissionsWaiting, BooleanSupplier leading, ScheduledExecutorService timer) {
        this.write = write;
        this.current = current;
        this.admissionsWaiting = admissionsWaiting;
        this.leading = leading;
        this.timer = timer;
    }

    /** Asks for the mark of this admission; returns at once (may be called under the scheduler's lock). */
    void record(Admission admission) {
        synchronized (this) {
            waiting.put(admission.key(), admission);
        }
        try {
            timer.execute(this::sendNext); // never on the caller's thread: it may hold the scheduler's lock
        } catch (RejectedExecutionException e) {
            LOG.debugf("shutting down: the pod-ran mark of %s is not written", admission.key());
        }
    }

    /** Sends the next mark if nothing is in flight, this replica leads and no admission waits; else looks later. */
    void sendNext() {
        Admission next;
        synchronized (this) {
            if (sending || waiting.isEmpty() || !leading.getAsBoolean()) {
                return;
            }
            if (admissionsWaiting.getAsInt() > 0) {
                if (!retryQueued) {
                    retryQueued = true;
                    schedule();
                }
                return;
            }
            Iterator<Admission> oldest = waiting.values().iterator();
            next = oldest.next();
            oldest.remove();
            sending = true;
        }
        CompletionStage<?> written = null;
        try {
            written = current.test(next) ? write.apply(next) : null;
        } catch (RuntimeException e) {
            LOG.debugf(e, "pod-ran mark of %s not written", next.key());
        }
        if (written == null) {
            done();
            return;
        }
        written.whenComplete((ignored, failure) -> done());
    }

    private void done() {
        synchronized (this) {
            sending = false;
        }
        sendNext();
    }

    private void schedule() {
        try {
            timer.schedule(() -> {
                synchronized (this) {
                    retryQueued = false;
                }
                sendNext();
            }, RETRY_MILLIS, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            LOG.debug("shutting down: pod-ran marks waiting are not written");
        }
    }

    /** How many marks wait to be written. */
    synchronized int waiting() {
        return waiting.size();
    }
}
