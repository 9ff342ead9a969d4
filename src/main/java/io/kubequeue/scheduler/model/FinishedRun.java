package io.kubequeue.scheduler.model;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * One admitted run of a job that has ended, as its object tells it: what the start-time estimates learn run times
 * from (issue 30). Taken from every finished job the informers list, so the history is rebuilt after a restart from
 * the jobs still in the cluster.
 *
 * @param key        the job (its kind is part of what alike jobs share)
 * @param group      the quota group its admission record names
 * @param request    what it asked for (millicores, bytes, counts): alike jobs have a request of the same shape
 * @param admittedAt when it was admitted (its admission record)
 * @param finishedAt when it ended (its kind's completion time)
 * @param runningFrom when its admission applied (the patch answered), if known: it ran from then, not from the
 *                   decision its record dates (an admission waits for its write in a burst); null: from
 *                   {@code admittedAt}
 */
public record FinishedRun(JobKey key, String group, Resources request, Instant admittedAt, Instant finishedAt,
                          Instant runningFrom) {

    /** A run known from its object alone: from its admission record's time to its end. */
    public FinishedRun(JobKey key, String group, Resources request, Instant admittedAt, Instant finishedAt) {
        this(key, group, request, admittedAt, finishedAt, null);
    }

    public FinishedRun {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(admittedAt, "admittedAt");
        Objects.requireNonNull(finishedAt, "finishedAt");
        request = request == null ? Resources.NONE : request;
    }

    /** How long it ran: from its admission applied (else its record's time) to its end, zero if the clocks disagree. */
    public Duration ran() {
        Duration ran = Duration.between(runningFrom != null ? runningFrom : admittedAt, finishedAt);
        return ran.isNegative() ? Duration.ZERO : ran;
    }
}
