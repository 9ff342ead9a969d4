package io.kubequeue.concurrent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

/**
 * {@link Throttle} on a hand-driven clock and scheduler: what runs, and after what delay, follows from the requests
 * alone.
 */
class ThrottleTest {

    private static final long SECOND = Duration.ofSeconds(1).toNanos();

    private long now = 1_000 * SECOND;
    private final List<Runnable> scheduled = new ArrayList<>();
    private final List<Long> delays = new ArrayList<>();
    private final AtomicInteger runs = new AtomicInteger();

    private Throttle throttle(Runnable task) {
        return new Throttle((job, delayNanos) -> {
            scheduled.add(job);
            delays.add(delayNanos);
        }, Duration.ofSeconds(1), () -> now, task);
    }

    private void runScheduled() {
        List<Runnable> due = new ArrayList<>(scheduled);
        scheduled.clear();
        due.forEach(Runnable::run);
    }

    @Test
    void theFirstRequestRunsAtOnceAndRequestsMeanwhileJoinIt() {
        Throttle throttle = throttle(runs::incrementAndGet);
        for (int i = 0; i < 100; i++) {
            throttle.request();
        }
        assertEquals(List.of(0L), delays, "one run, without delay");
        runScheduled();
        assertEquals(1, runs.get());
    }

    @Test
    void requestsWithinTheIntervalAreServedByOneRunAtItsEnd() {
        Throttle throttle = throttle(runs::incrementAndGet);
        throttle.request();
        runScheduled();
        now += SECOND / 4;
        throttle.request();
        now += SECOND / 4;
        throttle.request();
        assertEquals(List.of(0L, 3 * SECOND / 4), delays, "the second run waits out the rest of the interval");
        now += SECOND / 2;
        runScheduled();
        assertEquals(2, runs.get(), "the last request is never lost");
        now += 5 * SECOND;
        throttle.request();
        assertEquals(0L, delays.get(2), "after a quiet interval a request runs at once again");
    }

    @Test
    void aRequestMadeWhileTheTaskRunsGetsARunOfItsOwn() {
        Throttle[] self = new Throttle[1];
        self[0] = throttle(() -> {
            if (runs.incrementAndGet() == 1) {
                self[0].request(); // a change while the snapshot was being taken
            }
        });
        self[0].request();
        runScheduled();
        assertEquals(1, scheduled.size(), "the change during the run is served by the next run");
        assertEquals(SECOND, delays.get(1));
        runScheduled();
        assertEquals(2, runs.get());
    }

    @Test
    void aFailingTaskDoesNotStopLaterRuns() {
        Throttle throttle = throttle(() -> {
            runs.incrementAndGet();
            throw new IllegalStateException("boom");
        });
        throttle.request();
        assertThrows(IllegalStateException.class, this::runScheduled);
        now += 2 * SECOND;
        throttle.request();
        assertEquals(2, delays.size(), "still pending after the failure would have swallowed every later request");
    }
}
