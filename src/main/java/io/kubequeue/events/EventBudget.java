package io.kubequeue.events;

import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

import io.kubequeue.collections.BoundedMaps;

/**
 * Which of the events asked for are written, and when: events share the API server's write budget with the
 * admissions, so they get a budget of their own, modelled on client-go's event correlator (its aggregator and spam
 * filter) with one cluster-wide token bucket instead of one per object (docs/observability.md, "Events and their
 * budget"). No Kubernetes type: the target {@code R} is carried through untouched.
 *
 * <ol>
 *   <li><b>Repeats</b>: the same (object, reason, message) as last written is not written again. Per object and
 *   reason, one event is written at most every {@code aggregateInterval}: what comes within it waits, and every
 *   later one of the same object and reason joins the one waiting (the latest message kept, the number combined
 *   counted), so a burst of one reason on one object costs two writes (the first, then one that says how many it
 *   combines), not one per event.</li>
 *   <li><b>After the admissions</b>: nothing is written while decided admissions wait for a place in the admission
 *   pipeline ({@code admissionsWaiting} above 0): events wait behind them, in a queue of at most {@code queued}
 *   entries. A Normal event that has been due for longer than {@code maxWait} is dropped; when the queue is full,
 *   its oldest Normal event is dropped to make room (or, if it holds only Warnings, the one that came).</li>
 *   <li><b>Cluster-wide bucket</b>: every event written takes a token ({@code perSecond} a second, up to
 *   {@code burst}). A Normal event that finds none is dropped. A Warning (bad input, an eviction) may borrow: it is
 *   written while the bucket is above minus one burst, and the Normal events after it wait for the debt to be
 *   repaid; past that debt a Warning waits in the queue for a token and is not dropped for its age.</li>
 * </ol>
 *
 * Every event asked for is counted once ({@link EventTally}): written, aggregated (folded into another, which is
 * then written or dropped as one), or dropped with its cause; an exact repeat is not an event and is not counted.
 * Thread-safe; {@link #awaitNext} blocks.
 *
 * @param <R> what an event is written on (a Kubernetes object reference)
 */
final class EventBudget<R> {

    /**
     * The budget's settings.
     *
     * @param perSecond         tokens a second, all events together
     * @param burst             tokens at most (and the most a Warning may borrow)
     * @param aggregateInterval the least time between two events of one object and reason
     * @param maxWait           the longest a due Normal event waits before it is dropped
     * @param queued            the most events waiting at once
     */
    record Settings(int perSecond, int burst, Duration aggregateInterval, Duration maxWait, int queued) {
    }

    /**
     * An event to write now.
     *
     * @param key      its object and reason
     * @param target   its object
     * @param warning  whether it is a Warning (else Normal)
     * @param reason   e.g. {@code Admitted}
     * @param message  what to write, saying how many events it combines if more than one
     * @param combined how many events asked for it stands for (at least 1)
     */
    record Ready<R>(String key, R target, boolean warning, String reason, String message, int combined) {
    }

    private static final class Waiting<R> {
        final R target;
        final String reason;
        boolean warning;
        String message;
        int combined = 1;
        /** When it may be written (nanos): now, or the end of its object and reason's aggregate interval. */
        final long due;

        Waiting(R target, boolean warning, String reason, String message, long due) {
            this.target = target;
            this.warning = warning;
            this.reason = reason;
            this.message = message;
            this.due = due;
        }
    }

    private record Written(String message, long at) {
    }

    /** How long the writer looks again while it waits for admissions (or a token), at most. */
    static final long LOOK_AGAIN_NANOS = 100_000_000L;
    private static final int REMEMBERED = 10_000;

    private final Settings settings;
    private final LongSupplier nanoTime;
    private final EventTally tally;
    private final RateLimit bucket;
    private final long intervalNanos;
    private final long maxWaitNanos;
    /** Waiting events per object and reason, oldest first. */
    private final LinkedHashMap<String, Waiting<R>> waiting = new LinkedHashMap<>();
    /** The last event written per object and reason (message, when). */
    private final Map<String, Written> lastWritten = BoundedMaps.keepingRecentlyUsed(REMEMBERED);
    private volatile IntSupplier admissionsWaiting = () -> 0;

    /**
     * @param settings the budget
     * @param nanoTime the clock ({@link System#nanoTime} outside tests)
     * @param tally    where each event's end is counted
     */
    EventBudget(Settings settings, LongSupplier nanoTime, EventTally tally) {
        this.settings = settings;
        this.nanoTime = nanoTime;
        this.tally = tally;
        this.bucket = new RateLimit(settings.perSecond(), settings.burst(), nanoTime);
        this.intervalNanos = settings.aggregateInterval().toNanos();
        this.maxWaitNanos = settings.maxWait().toNanos();
    }

    /** Events wait while this is above 0: decided admissions waiting for a place in the admission pipeline. */
    void sendAfter(IntSupplier admissionsWaiting) {
        this.admissionsWaiting = admissionsWaiting;
    }

    /**
     * Asks for an event.
     *
     * @param key     its object and reason (the identity repeats are told by)
     * @param target  its object
     * @param warning Warning (else Normal)
     * @param reason  e.g. {@code Admitted}
     * @param message its message
     */
    synchronized void offer(String key, R target, boolean warning, String reason, String message) {
        long now = nanoTime.getAsLong();
        Waiting<R> queued = waiting.get(key);
        if (queued != null) {
            if (!queued.message.equals(message)) {
                queued.message = message;
                queued.combined++;
                queued.warning |= warning;
                tally.aggregated(reason);
            }
            return;
        }
        Written last = lastWritten.get(key);
        if (last != null && last.message().equals(message)) {
            return; // said already: a job that stays held for one reason gets one event, not one per cycle
        }
        long due = last != null && now - last.at() < intervalNanos ? last.at() + intervalNanos : now;
        if (waiting.size() >= settings.queued() && !makeRoom()) {
            tally.dropped(reason, EventTally.Cause.QUEUE_FULL);
            return;
        }
        waiting.put(key, new Waiting<>(target, warning, reason, message, due));
        notifyAll();
    }

    /** Drops the oldest waiting Normal event; false if only Warnings wait. */
    private boolean makeRoom() {
        for (Iterator<Waiting<R>> it = waiting.values().iterator(); it.hasNext(); ) {
            Waiting<R> w = it.next();
            if (!w.warning) {
                it.remove();
                tally.dropped(w.reason, EventTally.Cause.QUEUE_FULL);
                return true;
            }
        }
        return false;
    }

    /**
     * The next event to write now, if any; drops on the way the Normal events that waited too long or find no
     * token. Never blocks.
     */
    synchronized Optional<Ready<R>> next() {
        long now = nanoTime.getAsLong();
        boolean behindAdmissions = admissionsWaiting.getAsInt() > 0;
        for (Iterator<Map.Entry<String, Waiting<R>>> it = waiting.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, Waiting<R>> entry = it.next();
            Waiting<R> w = entry.getValue();
            if (!w.warning && now - w.due > maxWaitNanos) {
                it.remove();
                tally.dropped(w.reason, EventTally.Cause.WAITED_TOO_LONG);
                continue;
            }
            if (behindAdmissions || w.due > now) {
                continue;
            }
            if (w.warning ? bucket.tryAcquire(1 - settings.burst()) : bucket.tryAcquire()) {
                it.remove();
                lastWritten.put(entry.getKey(), new Written(w.message, now));
                return Optional.of(new Ready<>(entry.getKey(), w.target, w.warning, w.reason, message(w), w.combined));
            }
            if (!w.warning) {
                it.remove();
                tally.dropped(w.reason, EventTally.Cause.RATE_LIMIT);
            }
            // a Warning past the debt waits for a token, in its place
        }
        return Optional.empty();
    }

    /** The message written: the latest one, and how many events it combines if more than one. */
    private static String message(Waiting<?> w) {
        return w.combined == 1 ? w.message
                : w.combined + " events of this reason combined; the latest: " + w.message;
    }

    /**
     * Waits, at most {@code maxNanos}, for an event to write ({@link #next()}); looks again at least every
     * {@link #LOOK_AGAIN_NANOS} while events wait (for admissions, for their interval, for a token).
     */
    synchronized Optional<Ready<R>> awaitNext(long maxNanos) throws InterruptedException {
        Optional<Ready<R>> next = next();
        if (next.isPresent()) {
            return next;
        }
        long wait = waiting.isEmpty() ? maxNanos : Math.min(maxNanos, LOOK_AGAIN_NANOS);
        if (wait > 0) {
            wait(Math.max(1, wait / 1_000_000));
        }
        return next();
    }

    /** The event was written. */
    void written(Ready<R> event) {
        tally.written(event.reason());
    }

    /** Writing the event failed: counted dropped, and forgotten, so its next occurrence is written. */
    synchronized void failed(Ready<R> event) {
        lastWritten.remove(event.key());
        tally.dropped(event.reason(), EventTally.Cause.WRITE_FAILED);
    }

    /** Events waiting, for tests and metrics. */
    synchronized int waiting() {
        return waiting.size();
    }
}
