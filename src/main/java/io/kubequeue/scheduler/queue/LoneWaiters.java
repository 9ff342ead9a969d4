package io.kubequeue.scheduler.queue;

import java.time.Instant;

import io.kubequeue.scheduler.model.Resources;

/**
 * The backed-off jobs that wait alone but may wait in a {@link BackoffWave} (not refused, not yielding, in a group),
 * found by what a wave's jobs share ({@link BackoffWave.Key}: group, request with the job count, preemptibility,
 * retry time, tries), so that the next job that backs off alike makes a wave with one of them (issue 27).
 *
 * <p>Why not a wave of one: on a load where jobs back off one by one (each in its own cycle, so each at its own retry
 * time) nearly every wave has one member, and a wave of one costs ~220 bytes (the wave, its key, its shape, its
 * member set with its map and entry, its node in the map of waves) against nothing for a job waiting alone. Here a
 * lone job costs one or two slots of an open-addressing table (linear probing, at most half full): 4 to 8 bytes.
 *
 * <p>The table holds the entries themselves, hashed on their own fields ({@link JobEntry#group},
 * {@link JobEntry#effectiveRequest()}, {@code job.preemptible()}, {@link JobEntry#retryAt}, {@link JobEntry#attempts}),
 * which therefore must not change while an entry is in it: it is in it only while it is in the global backoff set,
 * out of every wave, and {@link QueueManager} takes it out whenever it leaves that set (which is sorted by its retry
 * time, so the same rule already holds there) and before its tries change. Only {@link QueueManager} touches it,
 * under {@code Scheduler}'s lock.
 */
final class LoneWaiters {

    private static final int MIN_CAPACITY = 16;
    private JobEntry[] slots = new JobEntry[MIN_CAPACITY];
    private int size;

    int size() {
        return size;
    }

    /** Adds a lone waiter (no-op if it is in already). */
    void add(JobEntry entry) {
        if ((size + 1) * 2 > slots.length) {
            resize(slots.length * 2);
        }
        int i = indexFor(hashOf(entry), slots.length);
        while (slots[i] != null) {
            if (slots[i] == entry) {
                return;
            }
            i = (i + 1) & (slots.length - 1);
        }
        slots[i] = entry;
        size++;
    }

    /** Takes out and returns a lone waiter alike the key (see the class comment); null if none. */
    JobEntry take(String group, Resources request, boolean preemptible, Instant retryAt, int attempts) {
        int mask = slots.length - 1;
        for (int i = indexFor(hash(group, request, preemptible, retryAt, attempts), slots.length); slots[i] != null;
             i = (i + 1) & mask) {
            JobEntry e = slots[i];
            if (e.attempts == attempts && e.job.preemptible() == preemptible && e.ownRetryAt().equals(retryAt)
                    && e.group.equals(group) && e.effectiveRequest().equals(request)) {
                deleteAt(i);
                return e;
            }
        }
        return null;
    }

    /** Takes the entry out if it is in; whether it was. */
    boolean remove(JobEntry entry) {
        if (size == 0 || entry.group == null || !entry.hasOwnRetryAt()) {
            return false; // never added: add needs both
        }
        int mask = slots.length - 1;
        for (int i = indexFor(hashOf(entry), slots.length); slots[i] != null; i = (i + 1) & mask) {
            if (slots[i] == entry) {
                deleteAt(i);
                return true;
            }
        }
        return false;
    }

    /** Whether the entry is in (for tests). */
    boolean contains(JobEntry entry) {
        if (size == 0 || entry.group == null || !entry.hasOwnRetryAt()) {
            return false;
        }
        int mask = slots.length - 1;
        for (int i = indexFor(hashOf(entry), slots.length); slots[i] != null; i = (i + 1) & mask) {
            if (slots[i] == entry) {
                return true;
            }
        }
        return false;
    }

    /** Each lone waiter, in no order (for tests). */
    void forEach(java.util.function.Consumer<JobEntry> action) {
        for (JobEntry e : slots) {
            if (e != null) {
                action.accept(e);
            }
        }
    }

    void clear() {
        slots = new JobEntry[MIN_CAPACITY];
        size = 0;
    }

    /** Linear probing's deletion: the entries after the freed slot that hash at or before it move back into it. */
    private void deleteAt(int i) {
        int mask = slots.length - 1;
        slots[i] = null;
        size--;
        int free = i;
        for (int j = (i + 1) & mask; slots[j] != null; j = (j + 1) & mask) {
            int home = indexFor(hashOf(slots[j]), slots.length);
            // slot j's entry may move to free iff its home is not in the cyclic range (free, j]
            boolean homeInRange = free <= j ? free < home && home <= j : free < home || home <= j;
            if (!homeInRange) {
                slots[free] = slots[j];
                slots[j] = null;
                free = j;
            }
        }
        if (slots.length > MIN_CAPACITY && size * 8 < slots.length) {
            resize(slots.length / 2); // a burst of backoffs gone: its room goes too
        }
    }

    private void resize(int capacity) {
        JobEntry[] old = slots;
        slots = new JobEntry[capacity];
        int mask = capacity - 1;
        for (JobEntry e : old) {
            if (e != null) {
                int i = indexFor(hashOf(e), capacity);
                while (slots[i] != null) {
                    i = (i + 1) & mask;
                }
                slots[i] = e;
            }
        }
    }

    private static int hashOf(JobEntry e) {
        return hash(e.group, e.effectiveRequest(), e.job.preemptible(), e.ownRetryAt(), e.attempts);
    }

    private static int hash(String group, Resources request, boolean preemptible, Instant retryAt, int attempts) {
        int h = group.hashCode();
        h = 31 * h + request.hashCode();
        h = 31 * h + (preemptible ? 1 : 0);
        h = 31 * h + retryAt.hashCode();
        h = 31 * h + attempts;
        return h;
    }

    private static int indexFor(int hash, int capacity) {
        int h = hash * 0x9E3779B9; // Fibonacci hashing: the low bits of the sums above are poorly spread
        return (h ^ (h >>> 16)) & (capacity - 1);
    }
}
