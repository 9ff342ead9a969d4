package io.kubequeue.bench;

import java.util.function.LongSupplier;

/**
 * The embedded API server's write budget: a token bucket of {@code perSecond} writes a second with a small burst,
 * shared by every client's writes, handed out in arrival order (one FIFO queue). Each write takes the next slot
 * ({@link #take}) and learns how long it waits for it; the server holds its answer that much longer.
 *
 * <p>The arithmetic is the virtual-scheduling form of a token bucket (GCRA): {@code due} is when the bucket would
 * next be empty; a write arriving at {@code t} moves it to {@code max(due, t) + interval} and waits
 * {@code due − burst × interval − t} if that is positive. So from rest the first {@code burst} writes wait nothing,
 * then one goes every {@code interval}; slots are never reordered, and a bucket left idle refills to {@code burst},
 * not beyond. Times are on an injected nanosecond clock, so a test counts slots instead of timing them.
 *
 * <p>Thread-safe ({@link #take} is synchronized; the server calls it from its event loop, the report reads the
 * figures from another thread).
 */
final class WriteBudget {

    /** The burst a budget of {@code perSecond} is given by {@link #perSecond}: 20 ms of its rate, at least 1. */
    static int defaultBurst(int perSecond) {
        return Math.max(1, perSecond / 50);
    }

    private final int perSecond;
    private final int burst;
    private final long intervalNanos;
    private final LongSupplier clock;

    // guarded by this
    private long due;
    private long taken;
    private long held;
    private long waitedNanos;
    private long longestWaitNanos;

    /**
     * @param perSecond writes a second, > 0
     * @param burst     writes that may go at once from rest, > 0
     * @param clock     nanoseconds, monotonic ({@link System#nanoTime} in the benchmark)
     * @throws IllegalArgumentException if {@code perSecond} or {@code burst} is not positive
     */
    WriteBudget(int perSecond, int burst, LongSupplier clock) {
        if (perSecond <= 0 || burst <= 0) {
            throw new IllegalArgumentException("a write budget needs a positive rate and burst, got " + perSecond
                    + "/s, burst " + burst);
        }
        this.perSecond = perSecond;
        this.burst = burst;
        // rounded: at 300/s the interval is 3,333,333 ns, a rate 0.00001 % high
        this.intervalNanos = Math.round(1e9 / perSecond);
        this.clock = clock;
        this.due = clock.getAsLong();
    }

    /** A budget of {@code perSecond} writes a second on {@link System#nanoTime}, with {@link #defaultBurst}. */
    static WriteBudget perSecond(int perSecond) {
        return new WriteBudget(perSecond, defaultBurst(perSecond), System::nanoTime);
    }

    /**
     * Takes the next slot for one write arriving now.
     *
     * @return nanoseconds the write waits for its slot (0: it goes at once)
     */
    synchronized long take() {
        long now = clock.getAsLong();
        due = Math.max(due, now) + intervalNanos;
        long wait = Math.max(0, due - burst * intervalNanos - now);
        taken++;
        if (wait > 0) {
            held++;
            waitedNanos += wait;
            longestWaitNanos = Math.max(longestWaitNanos, wait);
        }
        return wait;
    }

    int perSecond() {
        return perSecond;
    }

    int burst() {
        return burst;
    }

    /**
     * What the budget has done so far.
     *
     * @param taken            writes that took a slot
     * @param held             of them, writes that waited for their slot
     * @param waitedNanos      their waits added up, ns
     * @param longestWaitNanos the longest wait, ns
     */
    record Figures(long taken, long held, long waitedNanos, long longestWaitNanos) {

        /** The average wait of a write that took a slot, milliseconds (0 when none did). */
        double averageWaitMillis() {
            return taken == 0 ? 0 : waitedNanos / 1e6 / taken;
        }
    }

    synchronized Figures figures() {
        return new Figures(taken, held, waitedNanos, longestWaitNanos);
    }
}
