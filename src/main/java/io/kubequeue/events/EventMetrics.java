package io.kubequeue.events;

import java.util.Locale;

import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.StartupEvent;

/**
 * The events' series (docs/metrics.md, docs/observability.md "Events and their budget"), registered at start for
 * every reason kube-queue writes, so they exist (at 0) from the first scrape:
 * <ul>
 *   <li>{@code kube_queue_events_total{reason, outcome}}: every event asked for, once: {@code written},
 *   {@code aggregated} (folded into another of the same object and reason) or {@code dropped};</li>
 *   <li>{@code kube_queue_events_dropped_total{reason, cause}}: the dropped ones by cause: {@code rate_limit},
 *   {@code waited_too_long}, {@code queue_full}, {@code write_failed}.</li>
 * </ul>
 * Counted on every replica; only the leader writes events, so a follower's stay at 0.
 */
@Singleton
public class EventMetrics {

    private final MeterRegistry registry;
    private final EventTally tally;

    @jakarta.inject.Inject
    public EventMetrics(MeterRegistry registry, EventRecorder events) {
        this(registry, events.tally());
    }

    EventMetrics(MeterRegistry registry, EventTally tally) {
        this.registry = registry;
        this.tally = tally;
    }

    void onStart(@Observes StartupEvent event) {
        register();
    }

    /** Registers a series per reason and outcome (and cause), and one for each reason first counted later. */
    void register() {
        tally.forEachKey(this::register);
    }

    private void register(EventTally.Key key) {
        String reason = key.reason();
        String outcome = key.outcome().name().toLowerCase(Locale.ROOT);
        if (key.cause() != null && key.cause() != EventTally.Cause.values()[0]) {
            registerDropped(key, reason);
            return; // kube_queue_events{reason, outcome="dropped"} is one series for every cause: registered once
        }
        FunctionCounter.builder("kube_queue_events", tally, t -> t.count(reason, key.outcome()))
                .description("Events asked for, by reason and outcome: written, aggregated (folded into another"
                        + " event of the same object and reason), dropped (see kube_queue_events_dropped_total)")
                .tag("reason", reason).tag("outcome", outcome).register(registry);
        if (key.cause() != null) {
            registerDropped(key, reason);
        }
    }

    private void registerDropped(EventTally.Key key, String reason) {
        FunctionCounter.builder("kube_queue_events_dropped", tally, t -> t.count(key))
                .description("Events dropped, by reason and cause: rate_limit (no token in the cluster-wide"
                        + " bucket), waited_too_long (admissions waited longer than the events' max wait),"
                        + " queue_full, write_failed")
                .tag("reason", reason).tag("cause", key.cause().name().toLowerCase(Locale.ROOT))
                .register(registry);
    }
}
