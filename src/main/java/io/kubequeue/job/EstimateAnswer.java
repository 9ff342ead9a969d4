package io.kubequeue.job;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.function.Predicate;

import io.kubequeue.scheduler.model.Estimate;
import io.kubequeue.scheduler.model.JobKey;
import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * A start-time estimate ({@link Estimate}) as one reader reads it (issue 30): the {@code estimate} object of the read
 * API's jobs, of the dry run (read API and visibility API) and of the kubectl plugin. The times are RFC 3339 in UTC,
 * to the second ({@code "2026-03-01T10:15:00Z"}); other jobs named in the assumptions are rendered for the reader
 * ({@link io.kubequeue.scheduler.model.Explanation#render}; docs/security.md, "Reasons per reader").
 *
 * @param state          ESTIMATED, NEVER_FITS, NO_QUOTA_GROUP, UNKNOWN, BLOCKED or BEYOND_HORIZON
 *                       ({@link Estimate.State})
 * @param eta            the expected start with every job running its median run time; null unless ESTIMATED
 * @param etaLate        the start with every job running its 90th-percentile run time: the band's late end; null if
 *                       not estimated or not within the horizon
 * @param runsForSeconds how long the job itself is expected to run, whole seconds (median); null if unknown
 * @param assumptions    what the estimate assumes and rests on, one line each
 * @param computedAt     when the replay it comes from was taken
 * @param ageSeconds     how old it is as answered, whole seconds, never negative
 */
@RegisterForReflection // serialized by Jackson, also in the native image
public record EstimateAnswer(String state, String eta, String etaLate, Long runsForSeconds, List<String> assumptions,
                             String computedAt, long ageSeconds) {

    /**
     * @param estimate the core's estimate; null gives null
     * @param mayName  whether the reader may see a job the assumptions name (the others are "a job in quota group G")
     * @param now      the time of the answer, for {@link #ageSeconds}
     */
    public static EstimateAnswer of(Estimate estimate, Predicate<JobKey> mayName, Instant now) {
        if (estimate == null) {
            return null;
        }
        return new EstimateAnswer(estimate.state().name(), time(estimate.eta()), time(estimate.etaLate()),
                estimate.runsFor() == null ? null : estimate.runsFor().toSeconds(),
                estimate.assumptions().stream().map(a -> a.render(mayName)).toList(), time(estimate.computedAt()),
                estimate.age(now).toSeconds());
    }

    /** RFC 3339 in UTC, to the second; null for null. */
    public static String time(Instant t) {
        return t == null ? null : t.truncatedTo(ChronoUnit.SECONDS).toString();
    }
}
