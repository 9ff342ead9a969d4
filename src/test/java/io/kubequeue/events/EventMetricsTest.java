package io.kubequeue.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/** The events' series exist from the first scrape, and count what the budget did with each event. */
class EventMetricsTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final EventTally tally = new EventTally();

    private FunctionCounter events(String reason, String outcome) {
        return registry.find("kube_queue_events").tag("reason", reason).tag("outcome", outcome).functionCounter();
    }

    private FunctionCounter dropped(String reason, String cause) {
        return registry.find("kube_queue_events_dropped").tag("reason", reason).tag("cause", cause)
                .functionCounter();
    }

    @Test
    void everyReasonsSeriesExistsAtZeroFromTheStart() {
        new EventMetrics(registry, tally).register();
        for (String reason : EventTally.REASONS) {
            for (String outcome : new String[] {"written", "aggregated", "dropped"}) {
                assertNotNull(events(reason, outcome), reason + " " + outcome);
                assertEquals(0, events(reason, outcome).count());
            }
            for (String cause : new String[] {"rate_limit", "waited_too_long", "queue_full", "write_failed"}) {
                assertNotNull(dropped(reason, cause), reason + " " + cause);
            }
        }
    }

    @Test
    void theSeriesCountWhatTheBudgetDid() {
        new EventMetrics(registry, tally).register();
        AtomicLong nanos = new AtomicLong();
        EventBudget<String> budget = new EventBudget<>(new EventBudget.Settings(1, 2, Duration.ofMinutes(1),
                Duration.ofSeconds(30), 100), nanos::get, tally);
        for (int i = 0; i < 5; i++) {
            budget.offer("job-" + i + "/Admitted", "job-" + i, false, "Admitted", "admitted");
        }
        budget.offer("job-0/Reclaiming", "job-0", false, "Reclaiming", "one");
        budget.offer("job-0/Reclaiming", "job-0", false, "Reclaiming", "two");
        for (var next = budget.next(); next.isPresent(); next = budget.next()) {
            budget.written(next.get());
        }

        assertEquals(2, events("Admitted", "written").count());
        assertEquals(3, events("Admitted", "dropped").count());
        assertEquals(3, dropped("Admitted", "rate_limit").count());
        assertEquals(1, events("Reclaiming", "aggregated").count());
        assertEquals(1, dropped("Reclaiming", "rate_limit").count(), "no token left for the combined one");
    }

    @Test
    void aReasonNotKnownAtTheStartGetsItsSeriesWhenFirstCounted() {
        new EventMetrics(registry, tally).register();
        tally.written("SomethingNew");
        assertEquals(1, events("SomethingNew", "written").count());
        assertNotNull(dropped("SomethingNew", "queue_full"));
    }
}
