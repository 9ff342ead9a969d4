package io.kubequeue.scheduler;

import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * A group's backed-off jobs in queue order, and the same jobs split by {@link Shape}: a retry after a release
 * walks one cursor per shape that fits now ({@link #cursor}), so the jobs of a shape that does not fit are not
 * visited. An entry's shape does not change while it is in the set (as its priority: see {@link JobEntry#setJob}).
 */
final class BackedOffJobs implements Iterable<JobEntry> {
    /** A job's shape for fitting, within its group: its request (with the job count) and its preemptibility. */
    record Shape(Resources request, boolean preemptible) {
        static Shape of(JobEntry entry) {
            return new Shape(entry.effectiveRequest(), entry.job.preemptible());
        }
    }

    private final TreeSet<JobEntry> entries = new TreeSet<>(QueueOrder.JOBS);
    private final Map<Shape, TreeSet<JobEntry>> byShape = new HashMap<>();
    /** Told every job that joins or leaves (its group's queue times). */
    private final QueuedSince since;

    BackedOffJobs(QueuedSince since) {
        this.since = since;
    }

    BackedOffJobs() {
        this(new QueuedSince());
    }

    boolean add(JobEntry entry) {
        if (!entries.add(entry)) {
            return false;
        }
        since.add(entry);
        byShape.computeIfAbsent(Shape.of(entry), s -> new TreeSet<>(QueueOrder.JOBS)).add(entry);
        return true;
    }

    boolean remove(JobEntry entry) {
        if (!entries.remove(entry)) {
            return false;
        }
        forgetShape(entry);
        return true;
    }

    private void forgetShape(JobEntry entry) {
        since.remove(entry);
        Shape shape = Shape.of(entry);
        TreeSet<JobEntry> same = byShape.get(shape);
        same.remove(entry);
        if (same.isEmpty()) {
            byShape.remove(shape);
        }
    }

    /** The shapes present. */
    Set<Shape> shapes() {
        return byShape.keySet();
    }

    /** The jobs of one shape present, in queue order; its {@code remove} takes the job out of the whole set. */
    Iterator<JobEntry> cursor(Shape shape) {
        TreeSet<JobEntry> same = byShape.get(shape);
        return removing(same.iterator(), removed -> {
            entries.remove(removed);
            since.remove(removed);
            if (same.isEmpty()) {
                byShape.remove(shape, same);
            }
        });
    }

    boolean isEmpty() {
        return entries.isEmpty();
    }

    int size() {
        return entries.size();
    }

    JobEntry first() {
        return entries.first();
    }

    SortedSet<JobEntry> headSet(JobEntry entry) {
        return Collections.unmodifiableSortedSet(entries.headSet(entry));
    }

    @Override
    public Iterator<JobEntry> iterator() {
        return removing(entries.iterator(), this::forgetShape);
    }

    /** {@code inner}, whose {@code remove} also runs {@code alsoRemove} on the entry removed. */
    private static Iterator<JobEntry> removing(Iterator<JobEntry> inner, Consumer<JobEntry> alsoRemove) {
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
                inner.remove();
                alsoRemove.accept(last);
            }
        };
    }
}
