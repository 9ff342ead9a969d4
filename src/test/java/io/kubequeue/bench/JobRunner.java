package io.kubequeue.bench;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.kubequeue.bench.Load.JobRecord;

/**
 * Plays the Job controller: when the {@link Observer} first sees a Job suspended it writes condition
 * {@code Suspended} True (a status-only write that moves its resourceVersion while kube-queue decides, as the real
 * controller's does); when it sees a Job admitted, the runner writes its start
 * ({@code status.startTime}, one active pod) at once and its completion (condition {@code Complete} True,
 * {@code succeeded} 1) after the job's run time (its class's: 200 ms, 500 ms, 1 s; or the {@code varied} load's
 * draw), both through the status subresource with
 * non-blocking writes. Nothing of the runner waits on the API server.
 *
 * <p>The backlog load's holder ({@link Load.Role#HOLDER}) is left alone: it runs for the whole run, and a
 * {@code status.startTime} written before kube-queue read it would make it a job kube-queue does not manage
 * (docs/behaviour.md §1) instead of one it charges. A backlog job seen admitted is not run either (it is a failure
 * of the run, counted by the {@link Observer}).
 */
final class JobRunner implements Observer.Listener, AutoCloseable {

    private final JobWriter writer;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "bench-job-runner");
        t.setDaemon(true);
        return t;
    });

    /** Status writes sent and not yet answered. */
    private final AtomicInteger outstanding = new AtomicInteger();

    JobRunner(JobWriter writer) {
        this.writer = writer;
    }

    /** Condition {@code Suspended} on each Job seen suspended, as the Job controller writes it (issue 26). */
    @Override
    public void queued(JobRecord job) {
        outstanding.incrementAndGet();
        writer.suspended(job.namespace, job.name).whenComplete((r, e) -> outstanding.decrementAndGet());
    }

    @Override
    public void admitted(JobRecord job) {
        if (!job.measured()) {
            return;
        }
        writer.started(job.namespace, job.name);
        timer.schedule(() -> writer.completed(job.namespace, job.name), job.runTime.toNanos(),
                TimeUnit.NANOSECONDS);
    }

    /**
     * Waits until no {@code Suspended} condition write is outstanding (the jobs created before the run have their
     * condition before the measured window starts); false on timeout.
     */
    boolean awaitQuiet(long timeoutNanos) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutNanos;
        while (outstanding.get() > 0) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(100);
        }
        return true;
    }

    /** Status writes that failed so far. */
    long failures() {
        return writer.failures();
    }

    /** The first failed status write, or null. */
    String firstFailure() {
        return writer.firstFailure();
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
