package io.kubequeue.scheduler;

import java.time.Instant;
import java.util.TreeMap;

/**
 * The queue times ({@link JobEntry#queuedAt}) of a set of pending jobs, counted, so that the oldest is read in
 * O(log n) rather than by a walk over them: a metrics refresh reads every group's oldest pending job each second
 * (issue 27: a group of 100,000 pending jobs must not cost a walk under the scheduler's lock). A job's queue time
 * does not change while it is pending.
 */
final class QueuedSince {
    private final TreeMap<Instant, Integer> counts = new TreeMap<>();

    void add(JobEntry entry) {
        counts.merge(entry.queuedAt, 1, Integer::sum);
    }

    void remove(JobEntry entry) {
        counts.computeIfPresent(entry.queuedAt, (at, n) -> n == 1 ? null : n - 1);
    }

    /** The oldest queue time counted, or null if none. */
    Instant oldest() {
        return counts.isEmpty() ? null : counts.firstKey();
    }

    void clear() {
        counts.clear();
    }
}
