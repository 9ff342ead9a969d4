package io.kubequeue.scheduler.model;

/**
 * What a job says about its priority, before PriorityClasses are looked up (docs/behaviour.md §4): the pod
 * template's {@code priorityClassName} and its explicit {@code priority}, either possibly absent. The scheduler
 * resolves it with the {@link io.kubequeue.scheduler.model.PriorityClasses} in force, so a class created or changed later re-orders the queue.
 *
 * @param className the pod template's {@code priorityClassName}, or {@code null}
 * @param value     the pod template's {@code priority}, or {@code null}
 */
public record JobPriority(String className, Integer value) {

    /** Neither a class nor a value: the globalDefault class applies, else 0. */
    public static final JobPriority NONE = new JobPriority(null, null);

    /** An explicit priority value and no class. */
    public static JobPriority of(int value) {
        return new JobPriority(null, value);
    }

    /** A class name and no explicit value. */
    public static JobPriority ofClass(String className) {
        return new JobPriority(className, null);
    }

    public JobPriority {
        className = className == null || className.isEmpty() ? null : className;
    }

    /** At most this many distinct priorities are shared (see {@link #shared}); past it, each job keeps its own. */
    private static final int SHARED_LIMIT = 1024;
    private static final io.kubequeue.collections.BoundedInterner<JobPriority> SHARED =
            new io.kubequeue.collections.BoundedInterner<>(SHARED_LIMIT);

    /**
     * One instance per distinct priority (issue 27: each job's read made its own, 24 bytes per pending job, while a
     * cluster uses a handful of classes and values); {@link #NONE} for neither. Immutable, so sharing is safe.
     */
    static JobPriority shared(JobPriority priority) {
        if (priority == null || priority.className == null && priority.value == null) {
            return NONE;
        }
        return SHARED.intern(priority);
    }
}
