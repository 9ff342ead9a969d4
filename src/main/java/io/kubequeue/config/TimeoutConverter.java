package io.kubequeue.config;

import java.time.Duration;

import org.eclipse.microprofile.config.spi.Converter;

import io.quarkus.runtime.configuration.DurationConverter;

/**
 * Reads a timeout that may be switched off: {@code kube-queue.admission-timeout}, and the per-group admission
 * timeouts of the quota objects' annotations (docs/configuration.md, "Per-group admission timeout"). The forms are
 * Quarkus' own durations ({@link DurationConverter}, as every other duration setting reads), which include the
 * Kubernetes style {@code 15m} and {@code 1h30m}; {@code 0} means off. Anything else, and a negative duration, is
 * refused with a message that names the valid forms; a duration outside {@link SettingRanges#ADMISSION_TIMEOUT}
 * (1s to 365d) with one that names the range: {@code 400000000000d} reads as a Duration, but no admission lasts
 * past the end of {@link java.time.Instant}'s range, which is where it would put the deadline.
 */
public class TimeoutConverter implements Converter<Duration> {

    /** The forms accepted, for error messages. */
    public static final String VALID_FORMS = "0 (off), a whole number of seconds (90), a number with one unit"
            + " (500ms, 30s, 15m, 2h, 1d), hours, minutes and seconds together (1h30m), or ISO-8601 (PT15M)";

    /** The valid values, for error messages. */
    public static final String VALID_RANGE = "0 (off), or " + SettingRanges.ADMISSION_TIMEOUT.valid();

    /** @throws IllegalArgumentException naming the valid forms, see {@link #parse} */
    @Override
    public Duration convert(String value) {
        return parse(value);
    }

    /**
     * @param value e.g. {@code 15m}, {@code 1h30m}, {@code 90}, {@code 0}
     * @return the duration, {@link Duration#ZERO} for off
     * @throws IllegalArgumentException naming the valid forms when {@code value} is empty, not a duration, or
     *                                  negative; naming the valid range ({@link #VALID_RANGE}) when it lies outside
     */
    public static Duration parse(String value) {
        Duration duration;
        try {
            duration = value == null ? null : DurationConverter.parseDuration(value.trim());
        } catch (RuntimeException e) {
            duration = null;
        }
        if (duration == null) {
            throw new IllegalArgumentException("invalid duration '" + value + "'; valid forms: " + VALID_FORMS);
        }
        if (duration.isNegative()) {
            throw new IllegalArgumentException("invalid duration '" + value + "': must not be negative; valid forms: "
                    + VALID_FORMS);
        }
        if (!duration.isZero() && !SettingRanges.ADMISSION_TIMEOUT.contains(duration)) {
            throw new IllegalArgumentException("invalid duration '" + value + "': out of range; valid: " + VALID_RANGE);
        }
        return duration;
    }
}
