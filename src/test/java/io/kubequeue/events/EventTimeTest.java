package io.kubequeue.events;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;

import org.junit.jupiter.api.Test;

/** Event times as the API server reads a MicroTime: always six fractional digits, else the event is refused. */
class EventTimeTest {

    @Test
    void alwaysSixFractionalDigitsInUtc() {
        assertEquals("2026-11-30T03:00:00.000000Z", EventRecorder.eventTime(Instant.parse("2026-11-30T03:00:00Z")));
        assertEquals("2026-11-30T03:00:00.123000Z", EventRecorder.eventTime(Instant.parse("2026-11-30T03:00:00.123Z")));
        assertEquals("2026-11-30T03:00:00.123456Z",
                EventRecorder.eventTime(Instant.parse("2026-11-30T03:00:00.123456789Z")));
    }
}
