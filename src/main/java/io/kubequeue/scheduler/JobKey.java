package io.kubequeue.scheduler;

import java.util.Comparator;

/**
 * Identity of one job: its kind (e.g. {@code TFJob}, {@code Job}), namespace and name.
 */
public record JobKey(String kind, String namespace, String name) implements Comparable<JobKey> {

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
