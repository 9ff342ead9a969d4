package io.kubequeue.scheduler.queue;

import java.time.Instant;
import java.util.Comparator;

/**
 * The queue times ({@link JobEntry#queuedAt()}) of a set of pending jobs, so that the oldest is read in O(1) rather than
 * by a walk over them: a metrics refresh reads every group's oldest pending job each second (issue 27: a group of
 * 100,000 pending jobs must not cost a walk under the scheduler's lock). A job's queue time does not change while it
 * is pending.
 *
 * <p>A heap of the entries themselves ({@link EntryHeap}), each knowing its slot ({@link JobEntry#sinceSlot}), so
 * that a job leaves in O(log n): 4 to 8 bytes per job, where a sorted map of the times cost a 40-byte node per job
 * (each job is queued at its own instant). A job is in at most one such set at a time (its group's queue, or its group's held
 * jobs); one that is not in this one is left alone by {@link #remove}, as is one in a set dropped whole.
 */
public final class QueuedSince {
    private static final Comparator<JobEntry> BY_QUEUE_TIME = Comparator.comparingLong(JobEntry::queuedAtNanos);
    private final EntryHeap heap = new EntryHeap(BY_QUEUE_TIME, EntryHeap.Slot.SINCE);

    void add(JobEntry entry) {
        heap.add(entry);
    }

    void remove(JobEntry entry) {
        heap.remove(entry);
    }

    /** The oldest queue time counted, or null if none. */
    public Instant oldest() {
        JobEntry first = heap.first();
        return first == null ? null : first.queuedAt();
    }

    void clear() {
        heap.clear();
    }
}
