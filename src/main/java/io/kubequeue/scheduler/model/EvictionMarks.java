package io.kubequeue.scheduler.model;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * What a job carries about kube-queue's evictions of it (annotations {@code kube-queue/evicted},
 * {@code kube-queue/evicted-for}, {@code kube-queue/reclaimed-at}, {@code kube-queue/timed-out-at}), so that a
 * restarted or new leader finishes a reclaim or timeout in progress and keeps counting evictions per hour.
 *
 * @param reason      why the job was last suspended by kube-queue, if it is suspended now because of it; else null
 * @param preemptor   for a reclaim in progress: the job it was suspended for, which is admitted before it; else null
 * @param reclaimedAt when it was a reclaim's victim in the last hour, oldest first
 * @param timedOutAt  when its admission timed out in the last hour, oldest first
 */
public record EvictionMarks(Eviction.Reason reason, JobKey preemptor, List<Instant> reclaimedAt,
                            List<Instant> timedOutAt) {

    /** Counts and limits per hour ({@code kube-queue.reclaim.max-per-hour}). */
    public static final Duration WINDOW = Duration.ofHours(1);

    /** A job kube-queue never evicted. */
    public static final EvictionMarks NONE = new EvictionMarks(null, null, List.of(), List.of());

    public EvictionMarks {
        reclaimedAt = reclaimedAt == null ? List.of() : List.copyOf(reclaimedAt);
        timedOutAt = timedOutAt == null ? List.of() : List.copyOf(timedOutAt);
    }

    /** The same history, trimmed to the hour up to {@code now}, and no eviction in progress. */
    public EvictionMarks settledAt(Instant now) {
        return of(null, null, within(reclaimedAt, now), within(timedOutAt, now));
    }

    /**
     * The marks, {@link #NONE} itself if they say nothing: every job that carries none shares it (issue 27: a job
     * queued, or queued again, took a copy of its own, 32 bytes per pending job), and {@code != NONE} reads as "carries
     * some" ({@link io.kubequeue.scheduler.eviction.Evictions}). Immutable, so sharing is safe.
     */
    static EvictionMarks of(Eviction.Reason reason, JobKey preemptor, List<Instant> reclaimedAt,
                            List<Instant> timedOutAt) {
        if (reason == null && preemptor == null && reclaimedAt.isEmpty() && timedOutAt.isEmpty()) {
            return NONE;
        }
        return new EvictionMarks(reason, preemptor, reclaimedAt, timedOutAt);
    }

    /** The history after one more eviction at {@code now} (trimmed to the hour before it). */
    public EvictionMarks plus(Eviction.Reason why, JobKey forJob, Instant now) {
        List<Instant> reclaims = new ArrayList<>(within(reclaimedAt, now));
        List<Instant> timeouts = new ArrayList<>(within(timedOutAt, now));
        (why == Eviction.Reason.RECLAIM ? reclaims : timeouts).add(now);
        return new EvictionMarks(why, forJob, reclaims, timeouts);
    }

    /**
     * Both histories together (each time once), trimmed to the hour up to {@code now}, with no eviction in progress:
     * what this scheduler saw and what the job carries (after a restart, or another replica's evictions).
     */
    public EvictionMarks union(EvictionMarks other, Instant now) {
        return of(null, null, merged(reclaimedAt, other.reclaimedAt, now), merged(timedOutAt, other.timedOutAt, now));
    }

    private static List<Instant> merged(List<Instant> a, List<Instant> b, Instant now) {
        java.util.TreeSet<Instant> all = new java.util.TreeSet<>(within(a, now));
        all.addAll(within(b, now));
        return List.copyOf(all);
    }

    /** How many times it was a reclaim's victim in the hour up to {@code now}. */
    public int reclaimsWithin(Instant now) {
        return within(reclaimedAt, now).size();
    }

    /** How many times its admission timed out in the hour up to {@code now}. */
    public int timeoutsWithin(Instant now) {
        return within(timedOutAt, now).size();
    }

    private static List<Instant> within(List<Instant> times, Instant now) {
        Instant from = now.minus(WINDOW);
        return times.stream().filter(t -> t.isAfter(from) && !t.isAfter(now)).toList();
    }
}
