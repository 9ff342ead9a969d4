package io.kubequeue.scheduler.queue;

import java.time.Duration;
import java.time.Instant;

/**
 * Time arithmetic that saturates instead of throwing. {@link Instant#plus} throws past {@link Instant#MAX} (the end
 * of the year 1,000,000,000), and the times the core adds to come from settings, quota objects' annotations and
 * records anyone who may edit a job can write: one thrown in a scheduling cycle would stop it (issue 25). Past the
 * end, a time is {@link Instant#MAX}: a deadline there never comes, and nothing waits for it.
 */
public final class Times {

    private Times() {
    }

    /** {@code at + d}, or {@link Instant#MAX} / {@link Instant#MIN} where that lies past the end of time. */
    public static Instant plus(Instant at, Duration d) {
        // the common case without Duration.between(at, Instant.MAX), whose nanoseconds overflow and are caught
        // inside the JDK: an exception per backoff, the most of a replay's cycle under the default policy (issue 30)
        if (!d.isNegative() && d.getSeconds() < Instant.MAX.getEpochSecond() - at.getEpochSecond() - 1
                || d.isNegative() && d.getSeconds() > Instant.MIN.getEpochSecond() - at.getEpochSecond() + 1) {
            return at.plus(d);
        }
        try {
            if (!d.isNegative()) {
                return d.compareTo(Duration.between(at, Instant.MAX)) >= 0 ? Instant.MAX : at.plus(d);
            }
            return d.compareTo(Duration.between(at, Instant.MIN)) <= 0 ? Instant.MIN : at.plus(d);
        } catch (java.time.DateTimeException | ArithmeticException e) {
            // Instant.plus adds the seconds before the nanoseconds: within a second of an end, a sum in range throws
            return d.isNegative() ? Instant.MIN : Instant.MAX;
        }
    }

    /** What {@link #nanos} answers for "no time": no instant maps to it. */
    static final long NO_TIME = Long.MIN_VALUE;

    /**
     * {@code at} as nanoseconds since the epoch, saturated: {@link Long#MAX_VALUE} for {@link Instant#MAX} and all
     * past 2262, {@code Long.MIN_VALUE + 1} for all before 1677 (neither comes, or both have passed, for any clock);
     * {@link #NO_TIME} for null. A long field costs 8 bytes where an Instant costs 28 (issue 27).
     */
    static long nanos(Instant at) {
        if (at == null) {
            return NO_TIME;
        }
        if (at.getEpochSecond() >= Long.MAX_VALUE / 1_000_000_000L) {
            return Long.MAX_VALUE;
        }
        if (at.getEpochSecond() <= Long.MIN_VALUE / 1_000_000_000L) {
            return Long.MIN_VALUE + 1;
        }
        return at.getEpochSecond() * 1_000_000_000L + at.getNano();
    }

    /** The instant of {@link #nanos}: null for {@link #NO_TIME}, {@link Instant#MAX} for {@link Long#MAX_VALUE}. */
    static Instant instant(long nanos) {
        if (nanos == NO_TIME) {
            return null;
        }
        if (nanos == Long.MAX_VALUE) {
            return Instant.MAX;
        }
        if (nanos == Long.MIN_VALUE + 1) {
            return Instant.MIN;
        }
        return Instant.ofEpochSecond(Math.floorDiv(nanos, 1_000_000_000L), Math.floorMod(nanos, 1_000_000_000L));
    }

    /** {@code d × 2}, at most the longest Duration. */
    static Duration doubled(Duration d) {
        return d.getSeconds() >= Long.MAX_VALUE / 2 ? Duration.ofSeconds(Long.MAX_VALUE, 999_999_999) : d.plus(d); // not multipliedBy: BigDecimal
    }
}
