package io.kubequeue.job;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import io.fabric8.kubernetes.api.model.HasMetadata;

/**
 * An optional capability of a {@link JobKind}: the job's own fields say how long it may run and when it ended, for
 * the start-time estimates (issue 30; docs/observability.md, "Start-time estimates"). Its fields are read through
 * {@link RunTimeFields}: a value of the wrong type, not positive, absurd or that does not parse reads as absent, and
 * neither method throws. Both read the cached (pruned) copy, so {@link JobKind#pruned} keeps what they read.
 *
 * @param <R> the job's fabric8 type
 */
public interface TellsRunTime<R extends HasMetadata> {

    /**
     * The job's {@code activeDeadlineSeconds}: its controller stops it that long after it started, so no estimate of
     * it runs longer.
     *
     * @return whole seconds, from 1 to {@link RunTimeFields#LONGEST}; empty if the job has none, or it does not read
     */
    Optional<Duration> activeDeadline(R job);

    /**
     * When the job ended, as its controller wrote it; asked of a finished job only.
     *
     * @return the instant; empty if the job does not say, or the time does not read
     */
    Optional<Instant> completionTime(R job);
}
