package io.kubequeue.bench;

import java.util.concurrent.locks.LockSupport;

import io.kubequeue.bench.Load.JobRecord;

/**
 * Submits the load's Jobs on schedule: one thread walks the jobs in submission order, waits for each one's
 * moment and hands it to the non-blocking {@link JobWriter}, so the write latency never delays the next
 * submission. Jobs due at the same moment (the burst) go out back to back, as fast as the writer's limit and the
 * server allow.
 */
final class Submitter implements AutoCloseable {

    private final Load load;
    private final JobWriter writer;
    private final Thread thread;
    private volatile long start;
    private volatile int sent;
    /** How far behind its schedule the latest submission went out, at most (nanoseconds). */
    private volatile long maxLag;

    Submitter(Load load, JobWriter writer) {
        this.load = load;
        this.writer = writer;
        this.thread = new Thread(this::run, "bench-submitter");
        thread.setDaemon(true);
    }

    /** Starts submitting; returns the moment of the first submission ({@link System#nanoTime()}). */
    long start() {
        start = System.nanoTime();
        thread.start();
        return start;
    }

    private void run() {
        for (JobRecord job : load.jobs) {
            long due = start + job.offsetNanos;
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
        }
    }

    /** Jobs handed to the writer so far. */
    int sent() {
        return sent;
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
