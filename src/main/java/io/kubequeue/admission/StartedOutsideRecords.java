package io.kubequeue.admission;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.kubequeue.collections.BoundedMaps;
import io.kubequeue.concurrent.DaemonThreads;
import io.kubequeue.job.JobFeed;
import io.kubequeue.scheduler.model.Admission;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.ReadViews;

/**
 * The records of jobs started outside kube-queue (docs/behaviour.md §1): the charge the scheduler made for such a job
 * is written on it ({@link Admitter#recordStartedOutside}), so that a restart still knows it. The writes may block
 * (a read and a retry on a conflict), so they run on a small pool of their own, never on the admission path. Only
 * the leader writes; a follower keeps the latest request per job (bounded) and writes those still charged that way
 * once it leads.
 */
final class StartedOutsideRecords {

    /** Records asked for while not leading that are kept; the oldest are dropped first. */
    private static final int DEFERRED_RECORDS_KEPT = 10_000;

    private final ReadViews scheduler;
    private final Admitter admitter;
    private final ExecutorService writers;
    private final Map<JobKey, JobFeed.StartedOutside> deferred = BoundedMaps.keepingNewest(DEFERRED_RECORDS_KEPT);

    /** @param workers threads that write records ({@code kube-queue.admission.workers}) */
    StartedOutsideRecords(ReadViews scheduler, Admitter admitter, int workers) {
        this.scheduler = scheduler;
        this.admitter = admitter;
        this.writers = Executors.newFixedThreadPool(workers, DaemonThreads.named("kube-queue-records"));
    }

    /** Writes the record now if {@code leading}, else keeps it; returns at once. */
    void record(JobFeed.StartedOutside started, boolean leading) {
        if (!leading) {
            // a follower writes nothing (the leader sees the same job and writes it); kept, in case this replica
            // leads next: its scheduler already holds the charge, so nothing would ask for the record again
            synchronized (deferred) {
                deferred.put(started.charge().key(), started);
            }
            return;
        }
        writers.execute(() -> admitter.recordStartedOutside(started));
    }

    /** Writes the records asked for while not leading, of jobs still charged that way. */
    void writeDeferred() {
        List<JobFeed.StartedOutside> pending;
        synchronized (deferred) {
            pending = List.copyOf(deferred.values());
            deferred.clear();
        }
        for (JobFeed.StartedOutside started : pending) {
            Admission charge = started.charge();
            boolean stillCharged = scheduler.status(charge.key()).map(s -> charge.record().equals(s.record()))
                    .orElse(false);
            if (stillCharged) {
                writers.execute(() -> admitter.recordStartedOutside(started));
            }
        }
    }

    /** Stops taking writes and waits, at most {@code nanos}, for those under way (shutdown). */
    void awaitWritten(long nanos) throws InterruptedException {
        writers.shutdown();
        writers.awaitTermination(nanos, TimeUnit.NANOSECONDS);
    }

    void stop() {
        writers.shutdown();
    }
}
