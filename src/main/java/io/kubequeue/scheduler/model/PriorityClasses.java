package io.kubequeue.scheduler.model;

import java.util.Map;
import java.util.Objects;

/**
 * The cluster's PriorityClasses ({@code scheduling.k8s.io/v1}), reduced to what queue order needs.
 *
 * @param values        class name → value (Kubernetes: a 32-bit integer, higher is more important)
 * @param globalDefault the name of the class marked {@code globalDefault: true}, or {@code null}
 */
public record PriorityClasses(Map<String, Integer> values, String globalDefault) {

    /** No classes at all: a job's priority is its explicit value, else 0. */
    public static final PriorityClasses NONE = new PriorityClasses(Map.of(), null);

    public PriorityClasses {
        values = Map.copyOf(Objects.requireNonNull(values, "values"));
    }

    /**
     * A job's priority by docs/behaviour.md §4: the value of the class it names if that class exists, else its
     * explicit value, else the globalDefault class's value, else 0.
     */
    public int resolve(JobPriority priority) {
        if (priority.className() != null) {
            Integer byClass = values.get(priority.className());
            if (byClass != null) {
                return byClass;
            }
        }
        if (priority.value() != null) {
            return priority.value();
        }
        Integer byDefault = globalDefault == null ? null : values.get(globalDefault);
        return byDefault == null ? 0 : byDefault;
    }
}
