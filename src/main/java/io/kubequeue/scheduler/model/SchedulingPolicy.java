package io.kubequeue.scheduler.model;

/**
 * How the queues of the quota groups are worked (docs/behaviour.md §4). The names say what each does; the
 * seed's env vars are named the other way round ({@code StrictPriority} turns on the blocking queue,
 * {@code StrictConsistency} the strict-priority retry), so {@link #of} is the one place that maps them.
 */
public enum SchedulingPolicy {
    /** Both switches false, as kube-scheduler: a job that does not fit backs off; jobs behind it may pass. */
    DEFAULT,
    /**
     * {@code StrictPriority=true} (seed: "开启阻塞队列", blocking queue): only the head of each group is tried;
     * nothing behind it in that group is admitted while it does not fit; other groups go on.
     */
    BLOCKING_QUEUE,
    /**
     * {@code StrictConsistency=true} (seed: "开启严格优先级调度", strict priority): as {@link #DEFAULT}, but every
     * release retries the backed-off jobs of the released tree at once, highest priority and earliest first.
     */
    RETRY_ON_RELEASE;

    /**
     * Resolves the seed's two switches. Both true gives {@link #BLOCKING_QUEUE}, which already retries its
     * head on every change.
     */
    public static SchedulingPolicy of(boolean strictPriority, boolean strictConsistency) {
        if (strictPriority) {
            return BLOCKING_QUEUE;
        }
        return strictConsistency ? RETRY_ON_RELEASE : DEFAULT;
    }
}
