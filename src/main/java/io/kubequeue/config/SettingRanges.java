package io.kubequeue.config;

import java.time.Duration;

import org.eclipse.microprofile.config.spi.Converter;

import io.quarkus.runtime.configuration.DurationConverter;

/**
 * The valid range of every number and duration kube-queue reads at start-up (docs/configuration.md lists them;
 * docs/security.md, "Settings are bounded", says why). A value outside its range stops start-up with a message that
 * names the setting and the range, e.g. {@code kube-queue.backoff.initial: must be from 10ms to 1h, got
 * '400000000000d'}: an absurd value is a typo or an attack on the arithmetic, never a wish, and taken as it is it
 * overflows later, in the middle of a scheduling cycle or a wait (issue 25).
 *
 * <p>The bounds are wide: each is far outside what a cluster needs, and tight only where a value beyond it cannot
 * work (a cache of less than a second, a job evicted more than once a minute). The ranges are read by the settings'
 * converters ({@link KubeQueueConfig}, through {@code @WithConverter}), so every value is checked as it is read,
 * before any bean uses it; the classes that take a value from elsewhere too check it against the same range.
 */
public final class SettingRanges {

    private SettingRanges() {
    }

    /** {@code kube-queue.admission-timeout} and the per-group timeouts: 0 (off), else this range. */
    public static final Durations ADMISSION_TIMEOUT = new Durations("kube-queue.admission-timeout", "1s", "365d");
    public static final Durations FIRST_LIST_TIMEOUT = new Durations("kube-queue.first-list-timeout", "0s", "1h");
    public static final Durations SHUTDOWN_DEADLINE = new Durations("kube-queue.shutdown-deadline", "1s", "1h");
    public static final Durations BACKOFF_INITIAL = new Durations("kube-queue.backoff.initial", "10ms", "1h");
    public static final Durations BACKOFF_MAX = new Durations("kube-queue.backoff.max", "10ms", "1h");
    public static final Durations LEASE_DURATION = new Durations("kube-queue.leader-election.lease-duration", "1s",
            "10m");
    public static final Durations RENEW_DEADLINE = new Durations("kube-queue.leader-election.renew-deadline", "1s",
            "10m");
    public static final Durations RETRY_PERIOD = new Durations("kube-queue.leader-election.retry-period", "100ms",
            "1m");
    public static final Durations BATCH_WINDOW = new Durations("kube-queue.admission.batch-window", "0s", "1m");
    public static final Durations READ_API_CACHE_FOR = new Durations("kube-queue.read-api.cache-for", "1s", "10m");
    public static final Durations READ_API_FORWARD_WAIT = new Durations("kube-queue.read-api.forward-wait", "0s",
            "30s");
    public static final Numbers IN_FLIGHT = new Numbers("kube-queue.admission.in-flight", 1, 1024);
    public static final Numbers WORKERS = new Numbers("kube-queue.admission.workers", 1, 64);
    public static final Numbers RECLAIM_MAX_PER_HOUR = new Numbers("kube-queue.reclaim.max-per-hour", 1, 60);
    public static final Numbers EVENTS_RATE = new Numbers("kube-queue.events.rate", 1, 1000);
    public static final Numbers EVENTS_BURST = new Numbers("kube-queue.events.burst", 1, 100_000);
    public static final Durations EVENTS_AGGREGATE_INTERVAL = new Durations("kube-queue.events.aggregate-interval",
            "0s", "1h");
    public static final Durations EVENTS_MAX_WAIT = new Durations("kube-queue.events.max-wait", "1s", "1h");
    public static final Numbers EVENTS_QUEUE_SIZE = new Numbers("kube-queue.events.queue-size", 1, 100_000);
    public static final Durations ESTIMATES_INTERVAL = new Durations("kube-queue.estimates.interval", "0s", "1h");
    public static final Durations ESTIMATES_HORIZON = new Durations("kube-queue.estimates.horizon", "1m", "365d");
    public static final Numbers ESTIMATES_MAX_CYCLES = new Numbers("kube-queue.estimates.max-cycles", 1, 10_000_000);

    /**
     * A duration setting's range, both ends included.
     *
     * @param setting the property, e.g. {@code kube-queue.backoff.initial}
     * @param least   the shortest valid value, as written in the docs ({@code 10ms})
     * @param most    the longest valid value, as written in the docs ({@code 1h})
     */
    public record Durations(String setting, String least, String most) {

        /** The shortest valid value. */
        public Duration min() {
            return DurationConverter.parseDuration(least);
        }

        /** The longest valid value. */
        public Duration max() {
            return DurationConverter.parseDuration(most);
        }

        /** Whether {@code value} lies in the range. */
        public boolean contains(Duration value) {
            return value.compareTo(min()) >= 0 && value.compareTo(max()) <= 0;
        }

        /** The range in words: {@code from 10ms to 1h}. */
        public String valid() {
            return "from " + least + " to " + most;
        }

        /**
         * @param value the value in force
         * @return {@code value}
         * @throws IllegalArgumentException naming the setting and the range, if it lies outside
         */
        public Duration check(Duration value) {
            return check(value, String.valueOf(value));
        }

        private Duration check(Duration value, String written) {
            if (!contains(value)) {
                throw new IllegalArgumentException(setting + ": must be " + valid() + ", got " + written);
            }
            return value;
        }

        /**
         * Reads a setting's text as Quarkus reads durations ({@code 90}, {@code 500ms}, {@code 15m}, {@code 1h30m},
         * {@code PT15M}) and checks its range.
         *
         * @throws IllegalArgumentException naming the setting and the range, for text that is no duration or one
         *                                  outside the range
         */
        public Duration read(String text) {
            Duration value;
            try {
                value = text == null ? null : DurationConverter.parseDuration(text.trim());
            } catch (RuntimeException e) {
                value = null; // an overflow ("99999999999999999d") as much as a typo
            }
            if (value == null) {
                throw new IllegalArgumentException(setting + ": must be a duration " + valid() + " (e.g. 500ms, 30s,"
                        + " 15m, 2h), got '" + text + "'");
            }
            return check(value, "'" + text + "'");
        }
    }

    /**
     * A whole-number setting's range, both ends included.
     *
     * @param setting the property, e.g. {@code kube-queue.admission.in-flight}
     * @param min     the least valid value
     * @param max     the greatest valid value
     */
    public record Numbers(String setting, int min, int max) {

        /** The range in words: {@code from 1 to 1024}. */
        public String valid() {
            return "from " + min + " to " + max;
        }

        /**
         * @return {@code value}
         * @throws IllegalArgumentException naming the setting and the range, if it lies outside
         */
        public int check(long value) {
            if (value < min || value > max) {
                throw new IllegalArgumentException(setting + ": must be " + valid() + ", got " + value);
            }
            return (int) value;
        }

        /**
         * @throws IllegalArgumentException naming the setting and the range, for text that is no whole number or
         *                                  one outside the range
         */
        public int read(String text) {
            long value;
            try {
                value = Long.parseLong(text.trim());
            } catch (RuntimeException e) {
                throw new IllegalArgumentException(setting + ": must be a whole number " + valid() + ", got '" + text
                        + "'");
            }
            return check(value);
        }
    }

    /** Reads a duration setting, in its range. */
    abstract static class BoundedDuration implements Converter<Duration> {
        private final Durations range;

        BoundedDuration(Durations range) {
            this.range = range;
        }

        @Override
        public Duration convert(String value) {
            return range.read(value);
        }
    }

    /** Reads a whole-number setting, in its range. */
    abstract static class BoundedNumber implements Converter<Integer> {
        private final Numbers range;

        BoundedNumber(Numbers range) {
            this.range = range;
        }

        @Override
        public Integer convert(String value) {
            return range.read(value);
        }
    }

    // one converter class per setting: SmallRye makes a converter from its class (@WithConverter)

    public static final class FirstListTimeout extends BoundedDuration {
        public FirstListTimeout() {
            super(FIRST_LIST_TIMEOUT);
        }
    }

    public static final class ShutdownDeadline extends BoundedDuration {
        public ShutdownDeadline() {
            super(SHUTDOWN_DEADLINE);
        }
    }

    public static final class BackoffInitial extends BoundedDuration {
        public BackoffInitial() {
            super(BACKOFF_INITIAL);
        }
    }

    public static final class BackoffMax extends BoundedDuration {
        public BackoffMax() {
            super(BACKOFF_MAX);
        }
    }

    public static final class LeaseDuration extends BoundedDuration {
        public LeaseDuration() {
            super(LEASE_DURATION);
        }
    }

    public static final class RenewDeadline extends BoundedDuration {
        public RenewDeadline() {
            super(RENEW_DEADLINE);
        }
    }

    public static final class RetryPeriod extends BoundedDuration {
        public RetryPeriod() {
            super(RETRY_PERIOD);
        }
    }

    public static final class BatchWindow extends BoundedDuration {
        public BatchWindow() {
            super(BATCH_WINDOW);
        }
    }

    public static final class ReadApiCacheFor extends BoundedDuration {
        public ReadApiCacheFor() {
            super(READ_API_CACHE_FOR);
        }
    }

    public static final class InFlight extends BoundedNumber {
        public InFlight() {
            super(IN_FLIGHT);
        }
    }

    public static final class Workers extends BoundedNumber {
        public Workers() {
            super(WORKERS);
        }
    }

    public static final class ReclaimMaxPerHour extends BoundedNumber {
        public ReclaimMaxPerHour() {
            super(RECLAIM_MAX_PER_HOUR);
        }
    }

    public static final class EventsRate extends BoundedNumber {
        public EventsRate() {
            super(EVENTS_RATE);
        }
    }

    public static final class EventsBurst extends BoundedNumber {
        public EventsBurst() {
            super(EVENTS_BURST);
        }
    }

    public static final class EventsAggregateInterval extends BoundedDuration {
        public EventsAggregateInterval() {
            super(EVENTS_AGGREGATE_INTERVAL);
        }
    }

    public static final class EventsMaxWait extends BoundedDuration {
        public EventsMaxWait() {
            super(EVENTS_MAX_WAIT);
        }
    }

    public static final class EventsQueueSize extends BoundedNumber {
        public EventsQueueSize() {
            super(EVENTS_QUEUE_SIZE);
        }
    }

    public static final class EstimatesInterval extends BoundedDuration {
        public EstimatesInterval() {
            super(ESTIMATES_INTERVAL);
        }
    }

    public static final class EstimatesHorizon extends BoundedDuration {
        public EstimatesHorizon() {
            super(ESTIMATES_HORIZON);
        }
    }

    public static final class EstimatesMaxCycles extends BoundedNumber {
        public EstimatesMaxCycles() {
            super(ESTIMATES_MAX_CYCLES);
        }
    }
}
