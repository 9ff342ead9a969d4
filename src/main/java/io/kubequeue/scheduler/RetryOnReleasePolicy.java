package io.kubequeue.scheduler;

import io.kubequeue.scheduler.ledger.QuotaLedger;
import io.kubequeue.scheduler.queue.GroupQueue;
import io.kubequeue.scheduler.queue.QueueManager;
import java.util.HashSet;
import java.util.Set;

/**
 * Retry on release ({@code StrictConsistency=true}, the seed's strict consistency): as the default policy, and a
 * release marks every group of the released tree that has backed-off jobs, which the next cycle reads in place,
 * in queue order with the active heads. A job that still does not fit keeps its place and its backoff timer.
 */
final class RetryOnReleasePolicy implements QueuePolicy {

    private final QueueManager queues;
    private final QuotaLedger ledger;
    /** Groups whose backed-off jobs the next cycle tries, by name: a group's queue object may be rebuilt meanwhile. */
    private final Set<String> retryAfterRelease = new HashSet<>();

    @Override
    public void copyFrom(QueuePolicy original) {
        retryAfterRelease.addAll(((RetryOnReleasePolicy) original).retryAfterRelease);
    }

    RetryOnReleasePolicy(QueueManager queues, QuotaLedger ledger) {
        this.queues = queues;
        this.ledger = ledger;
    }

    @Override
    public void released(String group) {
        for (GroupQueue queue : QueuePolicy.backedOffUnderRootOf(group, queues, ledger)) {
            retryAfterRelease.add(queue.group());
        }
    }

    @Override
    public Set<String> takeGroupsToRetry() {
        if (retryAfterRelease.isEmpty()) {
            return Set.of();
        }
        Set<String> groups = Set.copyOf(retryAfterRelease);
        retryAfterRelease.clear();
        return groups;
    }

    @Override
    public void forgetReleases() {
        retryAfterRelease.clear();
    }
}
