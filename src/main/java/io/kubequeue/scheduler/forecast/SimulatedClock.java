package io.kubequeue.scheduler.forecast;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** The clock of a {@link Simulation}: it stands still until the replay moves it, and never goes back. */
public final class SimulatedClock extends Clock {
    private volatile Instant now;

    /** @param start the simulated time to start from */
    public SimulatedClock(Instant start) {
        this.now = start;
    }

    /** Moves to {@code time}; an earlier time is ignored. */
    public void advanceTo(Instant time) {
        if (time.isAfter(now)) {
            now = time;
        }
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }

    @Override
    public Instant instant() {
        return now;
    }
}
