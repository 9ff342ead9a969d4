package io.kubequeue.scheduler.model;

import java.util.Comparator;

/**
 * Identity of one job: its kind (e.g. {@code TFJob}, {@code Job}), namespace and name.
 *
 * <p>The three strings are interned ({@link String#intern}: the JVM's table, whose entries go when no one uses
 * them): every map that knows a job keeps the first key put for it, often built from start-up's read of the job, and
 * no later read of the job shares that read's strings; interned, every key of the job and the informer's cached copy
 * (which interns them too) hold one instance of each, not one per read (issue 27, memory per pending job).
 */
public record JobKey(String kind, String namespace, String name) implements Comparable<JobKey> {

    public JobKey {
        kind = kind == null ? null : kind.intern();
        namespace = namespace == null ? null : namespace.intern();
        name = name == null ? null : name.intern();
    }

    private static final Comparator<JobKey> ORDER = Comparator.comparing(JobKey::namespace)
            .thenComparing(JobKey::name)
            .thenComparing(JobKey::kind);

    /** Orders by namespace, then name, then kind: the last tie-breaker of queue order (docs/behaviour.md §4). */
    @Override
    public int compareTo(JobKey other) {
        return ORDER.compare(this, other);
    }

    @Override
    public String toString() {
        return kind + " " + namespace + "/" + name;
    }
}
