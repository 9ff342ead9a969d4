package io.kubequeue.scheduler.queue;

import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.TreeSet;

import io.kubequeue.scheduler.model.Resources;

/**
 * A group's backed-off jobs in queue order, and the same jobs split by {@link Shape}: a retry after a release
 * walks one cursor per shape that fits now ({@link #cursor}), so the jobs of a shape that does not fit are not
 * visited. An entry's shape does not change while it is in the set (as its priority: see {@link JobEntry#setJob}).
 *
 * <p>The jobs are held once, in their shape's set; the queue order of the whole set is the merge of the shapes' sets,
 * and its first job the first of the shape whose first comes first ({@link #heads}, one entry per shape). A second
 * sorted set of every job cost a 40-byte node per backed-off job (issue 27).
 */
public final class BackedOffJobs implements Iterable<JobEntry> {
    /** A job's shape for fitting, within its group: its request (with the job count) and its preemptibility. */
    public record Shape(Resources request, boolean preemptible) {
        static Shape of(JobEntry entry) {
            return new Shape(entry.effectiveRequest(), entry.job.preemptible());
        }
    }

    private final Map<Shape, TreeSet<JobEntry>> byShape = new HashMap<>();
    /**
     * Each shape's set, ordered by its first job. A set is taken out before its first job changes and put back after:
     * its place depends on that job.
     */
    private final TreeSet<TreeSet<JobEntry>> heads = new TreeSet<>(
            (a, b) -> a == b ? 0 : QueueOrder.JOBS.compare(a.first(), b.first()));
    private int size;
    /** Told every job that joins or leaves (its group's queue times). */
    private final QueuedSince since;

    BackedOffJobs(QueuedSince since) {
        this.since = since;
    }

    BackedOffJobs() {
        this(new QueuedSince());
    }

    boolean add(JobEntry entry) {
        Shape shape = Shape.of(entry);
        TreeSet<JobEntry> same = byShape.get(shape);
        if (same == null) {
            same = new TreeSet<>(QueueOrder.JOBS);
            same.add(entry);
            byShape.put(shape, same);
            heads.add(same);
        } else {
            if (same.contains(entry)) {
                return false;
            }
            boolean newFirst = QueueOrder.JOBS.compare(entry, same.first()) < 0;
            if (newFirst) {
                heads.remove(same);
            }
            same.add(entry);
            if (newFirst) {
                heads.add(same);
            }
        }
        size++;
        since.add(entry);
        return true;
    }

    boolean remove(JobEntry entry) {
        Shape shape = Shape.of(entry);
        TreeSet<JobEntry> same = byShape.get(shape);
        if (same == null || !same.contains(entry)) {
            return false;
        }
        boolean wasFirst = leaving(same, entry);
        same.remove(entry);
        left(shape, same, entry, wasFirst);
        return true;
    }

    /** Before {@code entry} leaves {@code same}: takes the set out of {@link #heads} if its first job is leaving. */
    private boolean leaving(TreeSet<JobEntry> same, JobEntry entry) {
        boolean wasFirst = same.first() == entry;
        if (wasFirst) {
            heads.remove(same);
        }
        return wasFirst;
    }

    /** After {@code entry} left {@code same}: the count, the queue times, and the shape's place or its removal. */
    private void left(Shape shape, TreeSet<JobEntry> same, JobEntry entry, boolean wasFirst) {
        size--;
        since.remove(entry);
        if (same.isEmpty()) {
            byShape.remove(shape, same);
        } else if (wasFirst) {
            heads.add(same);
        }
    }

    /** The shapes present. */
    public Set<Shape> shapes() {
        return byShape.keySet();
    }

    /** The jobs of one shape present, in queue order; its {@code remove} takes the job out of the whole set. */
    public Iterator<JobEntry> cursor(Shape shape) {
        TreeSet<JobEntry> same = byShape.get(shape);
        Iterator<JobEntry> inner = same.iterator();
        return new Iterator<>() {
            private JobEntry last;

            @Override
            public boolean hasNext() {
                return inner.hasNext();
            }

            @Override
            public JobEntry next() {
                last = inner.next();
                return last;
            }

            @Override
            public void remove() {
                boolean wasFirst = leaving(same, last);
                inner.remove();
                left(shape, same, last, wasFirst);
            }
        };
    }

    public boolean isEmpty() {
        return size == 0;
    }

    public int size() {
        return size;
    }

    /** The first job in queue order; throws {@link NoSuchElementException} if there is none. */
    public JobEntry first() {
        return heads.first().first();
    }

    /** How many jobs come before {@code entry} in queue order: O(jobs), as a sorted set's head count is. */
    int countBefore(JobEntry entry) {
        int before = 0;
        for (TreeSet<JobEntry> same : byShape.values()) {
            before += same.headSet(entry).size();
        }
        return before;
    }

    /** Every job in queue order (the shapes' sets merged); read-only: take jobs out with {@link #remove}. */
    @Override
    public Iterator<JobEntry> iterator() {
        record Cursor(JobEntry current, Iterator<JobEntry> rest) {
        }
        PriorityQueue<Cursor> merge = new PriorityQueue<>(Math.max(1, byShape.size()),
                (a, b) -> QueueOrder.JOBS.compare(a.current(), b.current()));
        for (TreeSet<JobEntry> same : byShape.values()) {
            Iterator<JobEntry> it = same.iterator();
            merge.add(new Cursor(it.next(), it));
        }
        return new Iterator<>() {
            @Override
            public boolean hasNext() {
                return !merge.isEmpty();
            }

            @Override
            public JobEntry next() {
                Cursor c = merge.poll();
                if (c == null) {
                    throw new NoSuchElementException();
                }
                if (c.rest().hasNext()) {
                    merge.add(new Cursor(c.rest().next(), c.rest()));
                }
                return c.current();
            }
        };
    }
}
