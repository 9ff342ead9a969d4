package io.kubequeue.scheduler;

import java.time.Duration;
import java.time.Instant;

/**
 * Time arithmetic that saturates instead of throwing. {@link Instant#plus} throws past {@link Instant#MAX} (the end
 * of the year 1,000,000,000), and the times the core adds to come from settings, quota objects' annotations and
 * records anyone who may edit a job can write: one thrown in a scheduling cycle would stop it (issue 25). Past the
 * end, a time is {@link Instant#MAX}: a deadline there never comes, and nothing waits for it.
 */
final class Times {

    private Times() {
    }

    /** {@code at + d}, or {@link Instant#MAX} / {@link Instant#MIN} where that lies past the end of time. */
    static Instant plus(Instant at, Duration d) {
        if (!d.isNegative()) {
            return d.compareTo(Duration.between(at, Instant.MAX)) >= 0 ? Instant.MAX : at.plus(d);
        }
        return d.compareTo(Duration.between(at, Instant.MIN)) <= 0 ? Instant.MIN : at.plus(d);
    }

    /** {@code d × 2}, at most the longest Duration. */
    static Duration doubled(Duration d) {
        return d.getSeconds() >= Long.MAX_VALUE / 2 ? Duration.ofSeconds(Long.MAX_VALUE, 999_999_999) : d.multipliedBy(2);
    }
}
