package io.kubequeue.scheduler;

/**
 * How a quota group's queue is worked (behaviour.md §4; seed: "开启阻塞队列", "开启严格优先级调度").
 */
public enum SchedulingPolicy {
    /** kube-scheduler style: a job that does not fit backs off, and jobs behind it may be admitted. */
    DEFAULT,
    /** {@code StrictPriority=true}: only the head of each group is tried; nothing passes it while it waits. */
    BLOCKING,
    /** {@code StrictConsistency=true}: on every release, backed-off jobs are retried at once, in order. */
    STRICT_PRIORITY;

    /**
     * Resolves the seed's two switches. Both true gives {@link #BLOCKING}, which already retries from the head.
     */
    public static SchedulingPolicy of(boolean strictPriority, boolean strictConsistency) {
        if (strictPriority) {
            return BLOCKING;
        }
        return strictConsistency ? STRICT_PRIORITY : DEFAULT;
    }
}
