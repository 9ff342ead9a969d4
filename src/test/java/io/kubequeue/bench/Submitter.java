package io.kubequeue.bench;

import java.util.concurrent.locks.LockSupport;

import io.kubequeue.bench.Load.JobRecord;

/**
 * Submits the load's Jobs on schedule: one thread walks the jobs in submission order, waits for each one's
 * moment and hands it to the non-blocking {@link JobWriter}, so the write latency never delays the next
 * submission. Jobs due at the same moment (the burst) go out back to back, as fast as the writer's limit and the
 * server allow. A load in phases ({@link JobRecord#phase}, the {@code varied} load) has its next phase's jobs wait
 * until every job of the earlier phases has been seen finished ({@link Barrier}); their schedule starts then.
 */
final class Submitter implements AutoCloseable {

    /** Waits until {@code jobs} jobs have been seen finished; false if interrupted or given up. */
    interface Barrier {
        boolean awaitFinished(int jobs) throws InterruptedException;
    }

    private final Load load;
    private final JobWriter writer;
    private final Barrier barrier;
    /** When the current phase's schedule started ({@link System#nanoTime()}). */
    private volatile long phaseStart;
    /** When the last job was handed to the writer, 0 before. */
    private volatile long lastSent;
    private final Thread thread;
    private volatile long start;
    private volatile int sent;
    /** How far behind its schedule the latest submission went out, at most (nanoseconds). */
    private volatile long maxLag;

    Submitter(Load load, JobWriter writer) {
        this(load, writer, jobs -> true);
    }

    Submitter(Load load, JobWriter writer, Barrier barrier) {
        this.load = load;
        this.writer = writer;
        this.barrier = barrier;
        this.thread = new Thread(this::run, "bench-submitter");
        thread.setDaemon(true);
    }

    /** Starts submitting; returns the moment of the first submission ({@link System#nanoTime()}). */
    long start() {
        start = System.nanoTime();
        phaseStart = start;
        thread.start();
        return start;
    }

    private void run() {
        int phase = 0;
        for (JobRecord job : load.jobs) {
            if (job.phase != phase) {
                try {
                    if (!barrier.awaitFinished(sent)) {
                        return;
                    }
                } catch (InterruptedException e) {
                    return;
                }
                phase = job.phase;
                phaseStart = System.nanoTime();
            }
            long due = phaseStart + job.offsetNanos;
            long wait;
            while ((wait = due - System.nanoTime()) > 0) {
                LockSupport.parkNanos(wait);
                if (Thread.currentThread().isInterrupted()) {
                    return;
                }
            }
            maxLag = Math.max(maxLag, -wait);
            writer.create(load.job(job));
            sent++;
            lastSent = System.nanoTime();
        }
    }

    /** Jobs handed to the writer so far. */
    int sent() {
        return sent;
    }

    /** Whether every job has been handed to the writer. */
    boolean done() {
        return sent == load.jobs.size();
    }

    /** The largest delay of a submission behind its schedule (nanoseconds). */
    long maxLag() {
        return maxLag;
    }

    @Override
    public void close() {
        thread.interrupt();
    }
}
