package io.kubequeue.scheduler.queue;

import java.util.Arrays;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;

/**
 * A binary min-heap of job entries in a given order, each entry knowing its slot in it ({@link Slot}), so that any
 * entry leaves in O(log n) and membership is O(1): 4 to 8 bytes per job (the array, and an int in the entry), where a
 * sorted set costs a 40-byte node per job (issue 27). An entry is in at most one heap per {@link Slot}; one that is
 * not in this heap is left alone by {@link #remove}, as is one in a heap cleared whole. The order of an entry must not
 * change while it is in the heap.
 */
final class EntryHeap implements Iterable<JobEntry> {

    /** The field of {@link JobEntry} in which an entry keeps its place in the heaps of one kind ({@code -1}: in none). */
    enum Slot {
        /** {@link JobEntry#sinceSlot}: a group's queue times ({@link QueuedSince}). */
        SINCE,
        /** {@link JobEntry#retrySlot}: the global backoff order ({@link QueueManager}). */
        RETRY,
        /** {@link JobEntry#waveSlot}: a backoff wave's members ({@link BackoffWave#members}). */
        WAVE;

        int get(JobEntry entry) {
            return switch (this) {
                case SINCE -> entry.sinceSlot;
                case RETRY -> entry.retrySlot;
                case WAVE -> entry.waveSlot;
            };
        }

        void set(JobEntry entry, int slot) {
            switch (this) {
                case SINCE -> entry.sinceSlot = slot;
                case RETRY -> entry.retrySlot = slot;
                case WAVE -> entry.waveSlot = slot;
            }
        }
    }

    private static final JobEntry[] NONE = new JobEntry[0];
    private final Comparator<JobEntry> order;
    private final Slot slot;
    private JobEntry[] heap = NONE;
    private int size;

    /**
     * @param order the heap's order: {@link #first()} is its least entry
     * @param slot  the entry's field this kind of heap keeps its place in
     */
    EntryHeap(Comparator<JobEntry> order, Slot slot) {
        this.order = order;
        this.slot = slot;
    }

    /** @return false if the entry is in this heap already */
    boolean add(JobEntry entry) {
        if (contains(entry)) {
            return false;
        }
        if (size == heap.length) {
            heap = Arrays.copyOf(heap, Math.max(4, size * 2));
        }
        heap[size] = entry;
        slot.set(entry, size);
        size++;
        siftUp(size - 1);
        return true;
    }

    boolean contains(JobEntry entry) {
        int i = slot.get(entry);
        return i >= 0 && i < size && heap[i] == entry;
    }

    /** @return false if the entry was not in this heap */
    boolean remove(JobEntry entry) {
        if (!contains(entry)) {
            return false;
        }
        int i = slot.get(entry);
        slot.set(entry, -1);
        size--;
        JobEntry last = heap[size];
        heap[size] = null;
        if (i < size) {
            heap[i] = last;
            slot.set(last, i);
            siftDown(i);
            siftUp(slot.get(last));
        }
        if (heap.length > 16 && size < heap.length / 4) {
            heap = Arrays.copyOf(heap, heap.length / 2); // a heap that emptied gives its room back
        }
        return true;
    }

    /** The least entry, or null if the heap is empty. */
    JobEntry first() {
        return size == 0 ? null : heap[0];
    }

    /** Takes the least entry out; null if the heap is empty. */
    JobEntry pollFirst() {
        JobEntry first = first();
        if (first != null) {
            remove(first);
        }
        return first;
    }

    boolean isEmpty() {
        return size == 0;
    }

    int size() {
        return size;
    }

    /** Each entry, in no particular order; the heap must not change while the iterator is used. */
    @Override
    public Iterator<JobEntry> iterator() {
        return Arrays.asList(heap).subList(0, size).iterator();
    }

    /** A copy of the entries, in no particular order. */
    List<JobEntry> toList() {
        return Arrays.asList(Arrays.copyOf(heap, size));
    }

    void clear() {
        for (int i = 0; i < size; i++) {
            slot.set(heap[i], -1);
        }
        heap = NONE;
        size = 0;
    }

    private void siftUp(int i) {
        JobEntry e = heap[i];
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            JobEntry p = heap[parent];
            if (order.compare(e, p) >= 0) {
                break;
            }
            heap[i] = p;
            slot.set(p, i);
            i = parent;
        }
        heap[i] = e;
        slot.set(e, i);
    }

    private void siftDown(int i) {
        JobEntry e = heap[i];
        int half = size >>> 1;
        while (i < half) {
            int child = 2 * i + 1;
            int right = child + 1;
            if (right < size && order.compare(heap[right], heap[child]) < 0) {
                child = right;
            }
            if (order.compare(heap[child], e) >= 0) {
                break;
            }
            heap[i] = heap[child];
            slot.set(heap[i], i);
            i = child;
        }
        heap[i] = e;
        slot.set(e, i);
    }
}
