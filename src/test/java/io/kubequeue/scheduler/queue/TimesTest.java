package io.kubequeue.scheduler.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;

import org.junit.jupiter.api.Test;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;

/**
 * The core keeps a job's queue and retry times as nanoseconds since the epoch (issue 27): any instant a clock gives
 * comes back exact, order is kept, and the ends of time saturate instead of overflowing.
 */
class TimesTest {

    @Property
    void anInstantOfTheNanosecondRangeComesBackExactAndInOrder(
            @ForAll @LongRange(min = -9_223_372_035L, max = 9_223_372_035L) long seconds,
            @ForAll @LongRange(min = 0, max = 999_999_999) long nanos,
            @ForAll @LongRange(min = -9_223_372_035L, max = 9_223_372_035L) long otherSeconds) {
        Instant at = Instant.ofEpochSecond(seconds, nanos);
        Instant other = Instant.ofEpochSecond(otherSeconds);
        assertEquals(at, Times.instant(Times.nanos(at)));
        assertEquals(Integer.signum(at.compareTo(other)), Long.signum(Long.compare(Times.nanos(at), Times.nanos(other))));
    }

    @Test
    void theEndsOfTimeSaturateAndNullIsNoTime() {
        assertEquals(Long.MAX_VALUE, Times.nanos(Instant.MAX));
        assertEquals(Instant.MAX, Times.instant(Times.nanos(Instant.MAX)));
        assertEquals(Instant.MAX, Times.instant(Times.nanos(Instant.parse("3000-01-01T00:00:00Z"))), "never comes");
        assertEquals(Instant.MIN, Times.instant(Times.nanos(Instant.parse("1000-01-01T00:00:00Z"))), "long past");
        assertEquals(Times.NO_TIME, Times.nanos(null));
        assertNull(Times.instant(Times.NO_TIME));
        assertTrue(Times.nanos(Instant.MIN) > Times.NO_TIME, "no instant is \"no time\"");
        assertEquals(Instant.parse("2026-12-02T10:00:00.123456789Z"),
                Times.instant(Times.nanos(Instant.parse("2026-12-02T10:00:00.123456789Z"))));
    }

    /**
     * {@code plus} takes a fast path away from the ends of time (issue 30: the slow one threw inside the JDK on every
     * backoff); on both paths it answers what saturating arithmetic answers, near the ends included.
     */
    @Property(tries = 3000)
    void plusSaturatesExactlyAsTheDefinitionSays(
            @ForAll @LongRange(min = -31557014167219200L, max = 31556889864403199L) long seconds,
            @ForAll @LongRange(min = 0, max = 999_999_999) long nanos,
            @ForAll long durationSeconds, @ForAll @LongRange(min = 0, max = 999_999_999) long durationNanos,
            @ForAll boolean nearAnEnd) {
        Instant at = Instant.ofEpochSecond(nearAnEnd ? (seconds > 0 ? Instant.MAX.getEpochSecond() - seconds % 5
                : Instant.MIN.getEpochSecond() - seconds % 5) : seconds, nanos);
        java.time.Duration d = java.time.Duration.ofSeconds(nearAnEnd ? durationSeconds % 7 : durationSeconds,
                durationNanos);
        Instant expected;
        try {
            expected = at.plus(d);
        } catch (ArithmeticException | java.time.DateTimeException e) {
            expected = d.isNegative() ? Instant.MIN : Instant.MAX;
        }
        assertEquals(expected, Times.plus(at, d), at + " + " + d);
    }
}
