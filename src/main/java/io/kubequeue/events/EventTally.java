package io.kubequeue.events;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * What became of every event asked for, counted per reason: written, aggregated (folded into another event of the
 * same object and reason) or dropped, with the cause. Read by the metrics ({@link EventMetrics}:
 * {@code kube_queue_events_total}, {@code kube_queue_events_dropped_total}). The reasons kube-queue writes are known
 * ({@link #REASONS}) so that their series exist from the first scrape; another reason is counted all the same, its
 * series appearing when it is first counted. Thread-safe.
 */
public final class EventTally {

    /** What became of an event. */
    public enum Outcome {
        WRITTEN, AGGREGATED, DROPPED
    }

    /** Why an event was dropped. */
    public enum Cause {
        /** No token left in the cluster-wide bucket (a Normal event). */
        RATE_LIMIT,
        /** Due for longer than {@code kube-queue.events.max-wait} while admissions waited (a Normal event). */
        WAITED_TOO_LONG,
        /** The queue of waiting events was full ({@code kube-queue.events.queue-size}). */
        QUEUE_FULL,
        /** The API server did not take it. */
        WRITE_FAILED
    }

    /** Every reason kube-queue writes: Normal ones first, then Warnings (docs/observability.md lists them). */
    public static final List<String> REASONS = List.of("Queued", "Pending", "Admitted", "Reclaiming",
            "NoQuotaGroup", "NeverFits", "AdmissionRefused", "StartedOutsideQueue", "Reclaimed", "AdmissionTimedOut",
            "InvalidJob", "InvalidEvictionMark", "UntrustedRecord", "InvalidQuota", "InvalidQuotaTree",
            "InvalidAdmissionTimeout", "InvalidLimitRange", "InvalidRuntimeClass");

    /**
     * One count's labels.
     *
     * @param reason  the event's reason
     * @param outcome what became of it
     * @param cause   why it was dropped; null unless dropped
     */
    public record Key(String reason, Outcome outcome, Cause cause) {
    }

    private final Map<Key, LongAdder> counts = new ConcurrentHashMap<>();
    private final java.util.Set<String> reasons = ConcurrentHashMap.newKeySet();
    private volatile Consumer<Key> onNewKey = key -> {
    };

    public EventTally() {
        for (String reason : REASONS) {
            known(reason);
        }
    }

    /** Creates every count of a reason (each outcome and cause), once, so that its series all appear together. */
    private void known(String reason) {
        if (!reasons.add(reason)) {
            return;
        }
        create(new Key(reason, Outcome.WRITTEN, null));
        create(new Key(reason, Outcome.AGGREGATED, null));
        for (Cause cause : Cause.values()) {
            create(new Key(reason, Outcome.DROPPED, cause));
        }
    }

    private void create(Key key) {
        boolean[] created = new boolean[1];
        counts.computeIfAbsent(key, k -> {
            created[0] = true;
            return new LongAdder();
        });
        if (created[0]) {
            onNewKey.accept(key);
        }
    }

    private LongAdder counter(Key key) {
        LongAdder existing = counts.get(key);
        if (existing == null) {
            known(key.reason());
            create(key); // another thread may be creating the reason's counts: this one is there after this
            existing = counts.get(key);
        }
        return existing;
    }

    void written(String reason) {
        counter(new Key(reason, Outcome.WRITTEN, null)).increment();
    }

    void aggregated(String reason) {
        counter(new Key(reason, Outcome.AGGREGATED, null)).increment();
    }

    void dropped(String reason, Cause cause) {
        counter(new Key(reason, Outcome.DROPPED, cause)).increment();
    }

    /** The count under one key (0 if never counted). */
    public long count(Key key) {
        LongAdder counter = counts.get(key);
        return counter == null ? 0 : counter.sum();
    }

    /** Events of this reason with this outcome, every cause together. */
    public long count(String reason, Outcome outcome) {
        return counts.entrySet().stream().filter(e -> e.getKey().reason().equals(reason)
                && e.getKey().outcome() == outcome).mapToLong(e -> e.getValue().sum()).sum();
    }

    /**
     * Hands every key counted so far to {@code each}, then each new one as it is first counted (the metrics
     * register a series per key).
     */
    public synchronized void forEachKey(Consumer<Key> each) {
        Consumer<Key> before = onNewKey;
        onNewKey = key -> {
            before.accept(key);
            each.accept(key);
        };
        counts.keySet().forEach(each);
    }
}
