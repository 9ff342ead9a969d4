package io.kubequeue.job;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;

import io.kubequeue.input.InvalidJobException;

/**
 * Bounded readers of the fields a job says its run time with (issue 30, the start-time estimates;
 * docs/observability.md, "Start-time estimates"): {@code activeDeadlineSeconds}, a completion time, and the annotation
 * {@value Annotations#EXPECTED_DURATION}. Each reads a tenant-written value at a bounded cost and never throws: a
 * value of the wrong JSON type, not positive, beyond {@link #LONGEST}, longer than its length bound or that does not
 * parse reads as absent (docs/security.md, "Hostile input: the bounds").
 */
public final class RunTimeFields {

    /**
     * The longest run time read, from an {@code activeDeadlineSeconds} or {@value Annotations#EXPECTED_DURATION}: 366
     * days. Longer says nothing an estimate could use, and {@code 400000000000d} would overflow the arithmetic of an
     * estimate's instants.
     */
    public static final Duration LONGEST = Duration.ofDays(366);
    /**
     * The longest {@value Annotations#EXPECTED_DURATION} read, in characters (as a quantity or an admission timeout:
     * docs/security.md, "Hostile input: the bounds"); {@code 1h30m} is 5.
     */
    public static final int EXPECTED_DURATION_MAX_LENGTH = 64;
    /**
     * The longest completion time read, in characters: an RFC 3339 time as the API server writes it
     * ({@code 2026-11-29T22:04:14Z}, 20) with room for fractions and an offset.
     */
    public static final int TIME_MAX_LENGTH = 64;

    private RunTimeFields() {
    }

    /**
     * An {@code activeDeadlineSeconds} as written in a job's JSON: whole seconds, from 1 to {@link #LONGEST}.
     *
     * @param node the field (null or missing: absent)
     * @return the duration; empty for an absent field, or one that is not a JSON integer (a string, a float such as
     *         {@code 1e999999999}, a collection), not positive, or longer than {@link #LONGEST}
     */
    public static Optional<Duration> seconds(JsonNode node) {
        if (node == null || !node.isIntegralNumber() || !node.canConvertToLong()) {
            return Optional.empty();
        }
        return seconds(node.longValue());
    }

    /**
     * An {@code activeDeadlineSeconds} of a typed object (a batch Job's {@code spec}): whole seconds, from 1 to
     * {@link #LONGEST}.
     *
     * @param seconds the field; null: absent
     * @return the duration; empty if absent, not positive, or longer than {@link #LONGEST}
     */
    public static Optional<Duration> seconds(Long seconds) {
        if (seconds == null || seconds <= 0 || seconds > LONGEST.toSeconds()) {
            return Optional.empty();
        }
        return Optional.of(Duration.ofSeconds(seconds));
    }

    /**
     * A time a job's controller writes in its status (e.g. {@code status.completionTime}): RFC 3339 as
     * {@link Instant#parse} reads it ({@code 2026-11-29T22:04:14Z}, an offset allowed).
     *
     * @param node the field (null or missing: absent)
     * @return the instant; empty for an absent field, one that is not a JSON string, longer than
     *         {@value #TIME_MAX_LENGTH} characters, or that does not parse
     */
    public static Optional<Instant> time(JsonNode node) {
        return node == null || !node.isTextual() ? Optional.empty() : time(node.textValue());
    }

    /**
     * A time as {@link #time(JsonNode)} reads it, from a typed object's string (a batch Job's
     * {@code status.completionTime}).
     */
    public static Optional<Instant> time(String text) {
        if (text == null || text.isEmpty() || text.length() > TIME_MAX_LENGTH) {
            return Optional.empty();
        }
        try {
            return Optional.of(Instant.parse(text));
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }

    /**
     * The annotation {@value Annotations#EXPECTED_DURATION} as read: a duration, or why it is read as absent.
     *
     * @param duration the duration read, positive and at most {@link #LONGEST}; null when the value is refused
     * @param problem  why the value is refused, for the Warning event (e.g. "is not positive"); null when read
     */
    public record ExpectedDuration(Duration duration, String problem) {
    }

    /**
     * Reads a {@value Annotations#EXPECTED_DURATION} value: a Go-style duration such as {@code 90m}, {@code 1h30m} or
     * {@code 45s} (units {@code ns us µs ms s m h d w}, upper or lower case), parsed by fabric8's
     * {@link io.fabric8.kubernetes.api.model.Duration#parse}, positive and at most {@link #LONGEST}. Checked first:
     * at most {@value #EXPECTED_DURATION_MAX_LENGTH} characters, and only letters and digits. fabric8 finds the
     * duration's parts anywhere in the text and skips what lies between them, so it reads {@code -1h} as one hour,
     * {@code 1.5h} as five hours and {@code 10 000s} as none: a sign, a dot, a space or any other character is
     * refused here instead (Go would read the first two, but neither is an expected run time written as meant).
     *
     * @param value the annotation's value; null: absent, which is no problem
     * @return the duration, or the problem; both null for a null value
     */
    public static ExpectedDuration expectedDuration(String value) {
        if (value == null) {
            return new ExpectedDuration(null, null);
        }
        if (value.length() > EXPECTED_DURATION_MAX_LENGTH) {
            return new ExpectedDuration(null, "is longer than " + EXPECTED_DURATION_MAX_LENGTH + " characters");
        }
        if (value.isEmpty() || !value.chars().allMatch(c -> c < 128 && Character.isLetterOrDigit(c) || c == 'µ')) {
            return new ExpectedDuration(null, "is not a duration such as 90m, 1h30m or 45s (digits and units only)");
        }
        Duration duration;
        try {
            duration = io.fabric8.kubernetes.api.model.Duration.parse(value).getDuration();
        } catch (java.text.ParseException | RuntimeException e) {
            // ParseException: no duration or a unit it does not know; NumberFormatException and ArithmeticException:
            // a count past a long, or a sum past a Duration
            return new ExpectedDuration(null, "is not a duration such as 90m, 1h30m or 45s ("
                    + InvalidJobException.shown(e.getMessage()) + ")");
        }
        if (duration == null || duration.isZero() || duration.isNegative()) {
            return new ExpectedDuration(null, "is not positive");
        }
        if (duration.compareTo(LONGEST) > 0) {
            return new ExpectedDuration(null, "is longer than " + LONGEST.toDays() + " days");
        }
        return new ExpectedDuration(duration, null);
    }
}
