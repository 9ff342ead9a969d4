package io.kubequeue.job;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Collectors;

import io.kubequeue.scheduler.model.Eviction;
import io.kubequeue.scheduler.model.EvictionMarks;
import io.kubequeue.scheduler.model.JobKey;

/**
 * The values of the four eviction annotations ({@link Annotations#EVICTED}, {@link Annotations#EVICTED_FOR},
 * {@link Annotations#RECLAIMED_AT}, {@link Annotations#TIMED_OUT_AT}) as kube-queue writes and reads them: one
 * format, kept here, for the eviction patch that writes them and {@link JobFeed}, which reads them back into
 * {@link EvictionMarks} (so a restarted or new leader finishes a reclaim in progress and keeps counting evictions;
 * docs/behaviour.md, "Evictions").
 */
public final class EvictionAnnotations {

    /**
     * An eviction annotation whose value does not read; it is read as absent.
     *
     * @param annotation the annotation's key
     * @param value      its value as found
     * @param expected   what it should hold, in words, e.g. {@code reclaim, timeout or empty}
     */
    public record Problem(String annotation, String value, String expected) {
    }

    private EvictionAnnotations() {
    }

    /** {@link Annotations#EVICTED}'s value for this reason: {@code reclaim} or {@code timeout}. */
    public static String reason(Eviction.Reason reason) {
        return reason.name().toLowerCase(Locale.ROOT);
    }

    /** {@link Annotations#EVICTED_FOR}'s value: {@code Kind/namespace/name}, or empty for null (a timeout). */
    public static String jobRef(JobKey key) {
        return key == null ? "" : key.kind() + "/" + key.namespace() + "/" + key.name();
    }

    /** A history annotation's value: RFC 3339 instants ({@link Instant#toString()}), comma-separated; empty if none. */
    public static String times(List<Instant> times) {
        return times.stream().map(Instant::toString).collect(Collectors.joining(","));
    }

    /**
     * What a job's annotations say about kube-queue's evictions of it. The reason and the preemptor are read only
     * while the job is suspended ({@code queued}): on a running job they are left from an earlier eviction (its
     * admission clears them, but a job admitted before this version, or written by hand, may carry them). The
     * histories are always read, oldest first. A value that does not read is reported to {@code problems} and read
     * as absent; the others are still read.
     *
     * @param annotations the job's annotations; null reads as none
     * @param queued      whether the job is suspended now (phase {@code QUEUED})
     * @param problems    told of each annotation whose value does not read
     * @return the marks; {@link EvictionMarks#NONE} for a job that carries none
     */
    public static EvictionMarks read(Map<String, String> annotations, boolean queued, Consumer<Problem> problems) {
        if (annotations == null || annotations.isEmpty()) {
            return EvictionMarks.NONE;
        }
        Eviction.Reason reason = null;
        JobKey preemptor = null;
        if (queued) {
            String value = annotations.get(Annotations.EVICTED);
            if (value != null && !value.isEmpty()) {
                reason = switch (value) {
                    case "reclaim" -> Eviction.Reason.RECLAIM;
                    case "timeout" -> Eviction.Reason.TIMEOUT;
                    default -> {
                        problems.accept(new Problem(Annotations.EVICTED, value, "reclaim, timeout or empty"));
                        yield null;
                    }
                };
            }
            preemptor = jobKey(annotations.get(Annotations.EVICTED_FOR), problems);
        }
        List<Instant> reclaimedAt = instants(Annotations.RECLAIMED_AT, annotations.get(Annotations.RECLAIMED_AT),
                problems);
        List<Instant> timedOutAt = instants(Annotations.TIMED_OUT_AT, annotations.get(Annotations.TIMED_OUT_AT),
                problems);
        if (reason == null && preemptor == null && reclaimedAt.isEmpty() && timedOutAt.isEmpty()) {
            return EvictionMarks.NONE;
        }
        return new EvictionMarks(reason, preemptor, reclaimedAt, timedOutAt);
    }

    private static JobKey jobKey(String value, Consumer<Problem> problems) {
        if (value == null || value.isEmpty()) {
            return null;
        }
        String[] parts = value.split("/", -1);
        if (parts.length != 3 || parts[0].isBlank() || parts[1].isBlank() || parts[2].isBlank()) {
            problems.accept(new Problem(Annotations.EVICTED_FOR, value, "Kind/namespace/name or empty"));
            return null;
        }
        return new JobKey(parts[0], parts[1], parts[2]);
    }

    private static List<Instant> instants(String annotation, String value, Consumer<Problem> problems) {
        if (value == null || value.isBlank()) {
            return List.of();
        }
        List<Instant> times = new ArrayList<>();
        try {
            for (String time : value.split(",", -1)) {
                times.add(Instant.parse(time.strip()));
            }
        } catch (DateTimeParseException e) {
            problems.accept(new Problem(annotation, value,
                    "RFC 3339 times, comma-separated (e.g. 2026-01-01T00:00:00Z,2026-01-01T00:20:00Z), or empty"));
            return List.of();
        }
        times.sort(Comparator.naturalOrder());
        return times;
    }
}
