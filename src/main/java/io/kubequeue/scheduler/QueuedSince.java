package io.kubequeue.scheduler;

import java.time.Instant;
import java.util.Arrays;

/**
 * The queue times ({@link JobEntry#queuedAt()}) of a set of pending jobs, so that the oldest is read in O(1) rather than
 * by a walk over them: a metrics refresh reads every group's oldest pending job each second (issue 27: a group of
 * 100,000 pending jobs must not cost a walk under the scheduler's lock). A job's queue time does not change while it
 * is pending.
 *
 * <p>A binary min-heap of the entries themselves, each knowing its slot ({@link JobEntry#sinceSlot}), so that a job
 * leaves in O(log n): 4 to 8 bytes per job, where a sorted map of the times cost a 40-byte node per job (each job is
 * queued at its own instant). A job is in at most one such set at a time (its group's queue, or its group's held
 * jobs); one that is not in this one is left alone by {@link #remove}, as is one in a set dropped whole.
 */
final class QueuedSince {
    private static final JobEntry[] NONE = new JobEntry[0];
    private JobEntry[] heap = NONE;
    private int size;

    void add(JobEntry entry) {
        if (size == heap.length) {
            heap = Arrays.copyOf(heap, Math.max(4, size * 2));
        }
        heap[size] = entry;
        entry.sinceSlot = size;
        size++;
        siftUp(size - 1);
    }

    void remove(JobEntry entry) {
        int i = entry.sinceSlot;
        if (i < 0 || i >= size || heap[i] != entry) {
            return; // not in this set
        }
        entry.sinceSlot = -1;
        size--;
        JobEntry last = heap[size];
        heap[size] = null;
        if (i < size) {
            heap[i] = last;
            last.sinceSlot = i;
            siftDown(i);
            siftUp(last.sinceSlot);
        }
        if (heap.length > 16 && size < heap.length / 4) {
            heap = Arrays.copyOf(heap, heap.length / 2); // a group that emptied gives its room back
        }
    }

    /** The oldest queue time counted, or null if none. */
    Instant oldest() {
        return size == 0 ? null : heap[0].queuedAt();
    }

    void clear() {
        for (int i = 0; i < size; i++) {
            heap[i].sinceSlot = -1;
        }
        heap = NONE;
        size = 0;
    }

    private void siftUp(int i) {
        JobEntry e = heap[i];
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            JobEntry p = heap[parent];
            if (e.queuedAtNanos() >= p.queuedAtNanos()) {
                break;
            }
            heap[i] = p;
            p.sinceSlot = i;
            i = parent;
        }
        heap[i] = e;
        e.sinceSlot = i;
    }

    private void siftDown(int i) {
        JobEntry e = heap[i];
        int half = size >>> 1;
        while (i < half) {
            int child = 2 * i + 1;
            int right = child + 1;
            if (right < size && heap[right].queuedAtNanos() < heap[child].queuedAtNanos()) {
                child = right;
            }
            if (heap[child].queuedAtNanos() >= e.queuedAtNanos()) {
                break;
            }
            heap[i] = heap[child];
            heap[i].sinceSlot = i;
            i = child;
        }
        heap[i] = e;
        e.sinceSlot = i;
    }
}
