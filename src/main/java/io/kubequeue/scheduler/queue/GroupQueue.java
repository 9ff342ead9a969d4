package io.kubequeue.scheduler.queue;

import java.util.TreeSet;

/**
 * One quota group's pending jobs that may be tried: the active ones (tried in the next cycle) and the backed-off
 * ones (did not fit, or had their admission refused), each in {@link QueueOrder}. Held jobs are apart
 * ({@link QueueManager}).
 */
public final class GroupQueue {
    final String group;
    /** The queue times of its active and backed-off jobs (see {@link QueuedSince}). */
    public final QueuedSince since = new QueuedSince();
    /** Changed only by add, remove and pollFirst, which keep {@link #since}. */
    public final TreeSet<JobEntry> active = new TreeSet<>(QueueOrder.JOBS) {
        @Override
        public boolean add(JobEntry entry) {
            boolean added = super.add(entry);
            if (added) {
                since.add(entry);
            }
            return added;
        }

        @Override
        public boolean remove(Object o) {
            boolean removed = super.remove(o);
            if (removed) {
                since.remove((JobEntry) o);
            }
            return removed;
        }

        @Override
        public JobEntry pollFirst() {
            JobEntry first = super.pollFirst();
            if (first != null) {
                since.remove(first);
            }
            return first;
        }
    };
    public final BackedOffJobs backedOff = new BackedOffJobs(since);

    /** The quota group it holds the pending jobs of. */
    public String group() {
        return group;
    }

    GroupQueue(String group) {
        this.group = group;
    }

    public boolean isEmpty() {
        return active.isEmpty() && backedOff.isEmpty();
    }

    /** The first queued job, active or backing off, or null. */
    public JobEntry head() {
        if (isEmpty()) {
            return null;
        }
        if (active.isEmpty() || backedOff.isEmpty()) {
            return active.isEmpty() ? backedOff.first() : active.first();
        }
        return QueueOrder.JOBS.compare(active.first(), backedOff.first()) < 0 ? active.first() : backedOff.first();
    }

    /** How many queued jobs (active or backing off) come before {@code entry} in queue order. */
    public int ahead(JobEntry entry) {
        return active.headSet(entry).size() + backedOff.countBefore(entry);
    }
}
