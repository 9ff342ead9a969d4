package io.kubequeue.scheduler.queue;

import io.kubequeue.scheduler.model.PriorityClasses;

import java.util.Comparator;

/**
 * The order of a quota group's queue, in one place: higher priority first, then earlier creation time, then
 * namespace/name (docs/behaviour.md §4). The priority is the job's resolved one ({@link PriorityClasses}), cached on
 * its {@link JobEntry}; an update keeps the first creation time seen, so it never moves a job back.
 *
 * <p>Changing the order: every sorted set of the core ({@link GroupQueue}'s active and backed-off sets, the global
 * backoff set) is built from {@link #JOBS}, so a change here changes them all; what it may read must not change
 * while the job is in a set (see {@link JobEntry#setJob}).
 */
public final class QueueOrder {

    private QueueOrder() {
    }

    /**
     * Higher priority first, then earlier creation, then by key. Written out rather than composed from key
     * extractors: every queue insert and removal runs it about log2(n) times, and a job is compared with itself at
     * the end of each removal.
     */
    public static final Comparator<JobEntry> JOBS = (a, b) -> {
        if (a == b) {
            return 0;
        }
        int byPriority = Integer.compare(b.priority, a.priority);
        if (byPriority != 0) {
            return byPriority;
        }
        int byCreation = a.job.createdAt().compareTo(b.job.createdAt());
        return byCreation != 0 ? byCreation : a.job.key().compareTo(b.job.key());
    };

    /** Backed-off jobs: earliest retry first, then queue order. */
    static final Comparator<JobEntry> RETRY = Comparator
            .comparingLong(JobEntry::retryAtNanos)
            .thenComparing(JOBS);
}
