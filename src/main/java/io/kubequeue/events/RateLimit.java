package io.kubequeue.events;

import java.util.function.LongSupplier;

/**
 * A token bucket: {@code perSecond} events a second on average, up to {@code burst} at once. Keeps a long queue
 * from flooding the API server with events ({@link EventBudget}).
 */
final class RateLimit {

    private final double perNano;
    private final double burst;
    private final LongSupplier nanoTime;
    private double tokens;
    private long last;

    /**
     * @param perSecond average rate allowed
     * @param burst     how many may pass at once
     * @param nanoTime  the clock ({@link System#nanoTime} outside tests)
     */
    RateLimit(double perSecond, int burst, LongSupplier nanoTime) {
        this.perNano = perSecond / 1e9;
        this.burst = burst;
        this.nanoTime = nanoTime;
        this.tokens = burst;
        this.last = nanoTime.getAsLong();
    }

    /** Whether one more event may pass now (and takes its token if so). */
    synchronized boolean tryAcquire() {
        return tryAcquire(1);
    }

    /**
     * Whether one more event may pass now, with at least {@code atLeast} tokens in the bucket; takes its token if so.
     * Below 1 the bucket lends: the tokens go negative, and what passes after waits until they are repaid.
     *
     * @param atLeast the fewest tokens the bucket must hold: 1 for an event that may not borrow
     */
    synchronized boolean tryAcquire(double atLeast) {
        long now = nanoTime.getAsLong();
        tokens = Math.min(burst, tokens + (now - last) * perNano);
        last = now;
        if (tokens >= atLeast) {
            tokens -= 1;
            return true;
        }
        return false;
    }
}
