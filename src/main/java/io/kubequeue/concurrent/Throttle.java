package io.kubequeue.concurrent;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

/**
 * Runs a task at most once per interval however often it is requested, and always once more after the last
 * request: a request never waits longer than the interval, and none is lost. Requests made while a run is pending
 * join it; a request made while the task runs gets a run of its own (the task may have read the state before the
 * change). Never blocks the caller.
 *
 * <p>For work whose result is read much less often than it is asked for, e.g. metrics rebuilt from a snapshot
 * after every scheduling cycle (tens a second) and scraped every few seconds.
 */
public final class Throttle {

    /** Where a run is scheduled: runs {@code task} after {@code delayNanos} (0: as soon as possible). */
    @FunctionalInterface
    public interface Executor {
        void schedule(Runnable task, long delayNanos);
    }

    private final Executor executor;
    private final long intervalNanos;
    private final LongSupplier nanoClock;
    private final Runnable task;
    private final AtomicBoolean pending = new AtomicBoolean();
    private volatile long lastStart;

    /**
     * @param executor  where runs are scheduled (one thread, so runs never overlap)
     * @param interval  the least time between the starts of two runs; positive
     * @param nanoClock a monotonic clock in nanoseconds ({@code System::nanoTime})
     * @param task      the work; an exception it throws ends that run only
     * @throws IllegalArgumentException if the interval is not positive
     */
    public Throttle(Executor executor, Duration interval, LongSupplier nanoClock, Runnable task) {
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("a throttle's interval must be positive, got " + interval);
        }
        this.executor = executor;
        this.intervalNanos = interval.toNanos();
        this.nanoClock = nanoClock;
        this.task = task;
        this.lastStart = nanoClock.getAsLong() - intervalNanos;
    }

    /** Asks for a run: at once if none ran in the last interval, else at the interval's end. */
    public void request() {
        if (pending.compareAndSet(false, true)) {
            long wait = lastStart + intervalNanos - nanoClock.getAsLong();
            executor.schedule(this::run, Math.max(0, wait));
        }
    }

    private void run() {
        lastStart = nanoClock.getAsLong();
        pending.set(false); // before the task: a change it may miss asks for the next run
        task.run();
    }
}
