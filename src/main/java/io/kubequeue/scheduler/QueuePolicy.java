package io.kubequeue.scheduler;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import io.kubequeue.scheduler.ledger.QuotaLedger;
import io.kubequeue.scheduler.model.Explanation;
import io.kubequeue.scheduler.model.SchedulingPolicy;
import io.kubequeue.scheduler.queue.GroupQueue;
import io.kubequeue.scheduler.queue.JobEntry;
import io.kubequeue.scheduler.queue.QueueManager;

/**
 * How queues are worked: what a cycle does with a head that does not fit, and what a release wakes. One
 * implementation per {@link SchedulingPolicy}, chosen once from the settings by the facade ({@code Scheduler}); the
 * seed's switches map to them as docs/policies.md says:
 * <ul>
 *   <li>{@link DefaultPolicy}: a job that does not fit backs off; other jobs go on (no strict switch);</li>
 *   <li>{@link RetryOnReleasePolicy}: as default, and a release retries the released tree's backed-off jobs at once
 *       ({@code StrictConsistency=true});</li>
 *   <li>{@link BlockingQueuePolicy}: a head that does not fit blocks its group ({@code StrictPriority=true}).</li>
 * </ul>
 * Each method has the default policy's answer as its default. Called under {@link Scheduler}'s lock.
 */
interface QueuePolicy {

    /** Takes on what {@code original} (of the same policy) remembers between cycles (for {@link Scheduler#copy}). */
    default void copyFrom(QueuePolicy original) {
    }

    /** Whether a cycle may try this group's active head. */
    default boolean mayTry(GroupQueue queue) {
        return !queue.active.isEmpty();
    }

    /**
     * Whether a head that does not fit stays the head and ends its group's turn in the cycle; if not, it backs
     * off and the next job of the group is tried.
     */
    default boolean keepsHeadWhenShort() {
        return false;
    }

    /**
     * Whether an expired backoff whose shape does not fit at the start of a cycle is tried right there and waits
     * again in place (see {@link SchedulingCycle}). Not where a short head must stay its group's head.
     */
    default boolean retriesExpiredInPlace() {
        return true;
    }

    /** Something was released in the group's tree (a charge taken off it, or less used outside kube-queue). */
    default void released(String group) {
    }

    /** The groups whose backed-off jobs the next cycle tries in place, read once: the set is emptied. */
    default Set<String> takeGroupsToRetry() {
        return Set.of();
    }

    /** The quota groups were replaced and every pending job made active: releases noted so far are moot. */
    default void forgetReleases() {
    }

    /**
     * Why a pending job that is not its group's head waits behind it, if this policy makes it; else null.
     *
     * @param when when the job is tried next, in words
     */
    default Explanation waitsBehindHead(JobEntry entry, JobEntry head, String when) {
        return null;
    }

    /** Why a job that fits now, with {@code ahead} jobs before it in its group, would still wait; else null. */
    default String fitsButWaits(int ahead) {
        return null;
    }

    /**
     * The queues with backed-off jobs in the tree (same root) of a released group; empty if nothing backs off.
     * O(groups): other trees are skipped by a root lookup.
     */
    static List<GroupQueue> backedOffUnderRootOf(String group, QueueManager queues, QuotaLedger ledger) {
        if (!queues.anyBackedOff() || group == null) {
            return List.of();
        }
        String root = ledger.tree().rootOf(group);
        if (root == null) {
            return List.of();
        }
        List<GroupQueue> found = new ArrayList<>();
        for (GroupQueue queue : queues.queues()) {
            if (!queue.backedOff.isEmpty() && root.equals(ledger.tree().rootOf(queue.group()))) {
                found.add(queue);
            }
        }
        return found;
    }
}
