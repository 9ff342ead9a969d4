package io.kubequeue.scheduler;

import java.util.ArrayList;
import java.util.List;

import io.kubequeue.scheduler.ledger.QuotaLedger;
import io.kubequeue.scheduler.model.Explanation;
import io.kubequeue.scheduler.queue.GroupQueue;
import io.kubequeue.scheduler.queue.JobEntry;
import io.kubequeue.scheduler.queue.QueueManager;
import io.kubequeue.scheduler.queue.QueueOrder;

/**
 * The blocking queue ({@code StrictPriority=true}, the seed's strict priority): a group's head that does not fit
 * stays its head, and nothing behind it is admitted until it is. Its backed-off jobs are only refused admissions (a
 * handful); a release moves them back to active, except those waiting out a refusal, which still block their group
 * since they stay ahead of the jobs behind them.
 */
final class BlockingQueuePolicy implements QueuePolicy {

    private final QueueManager queues;
    private final QuotaLedger ledger;

    BlockingQueuePolicy(QueueManager queues, QuotaLedger ledger) {
        this.queues = queues;
        this.ledger = ledger;
    }

    /** A backed-off job (a refused admission) ahead of the active head still blocks the group. */
    @Override
    public boolean mayTry(GroupQueue queue) {
        if (queue.active.isEmpty()) {
            return false;
        }
        return queue.backedOff.isEmpty() || QueueOrder.JOBS.compare(queue.active.first(), queue.backedOff.first()) < 0;
    }

    @Override
    public boolean keepsHeadWhenShort() {
        return true;
    }

    @Override
    public boolean retriesExpiredInPlace() {
        return false;
    }

    @Override
    public void released(String group) {
        for (GroupQueue queue : QueuePolicy.backedOffUnderRootOf(group, queues, ledger)) {
            List<JobEntry> woken = new ArrayList<>();
            for (JobEntry e : queue.backedOff) {
                if (!e.refused()) { // a refused admission waits out its backoff
                    woken.add(e);
                }
            }
            for (JobEntry e : woken) {
                queues.endBackoff(e, true);
            }
        }
    }

    @Override
    public Explanation waitsBehindHead(JobEntry entry, JobEntry head, String when) {
        return Explanation.of("blocking queue: waits behind the head of quota group " + entry.group() + ", ")
                .then(head.job().key(), head.group()).then("; " + when);
    }

    @Override
    public String fitsButWaits(int ahead) {
        return ahead > 0 ? "fits now, but the blocking queue admits the " + ahead + " job(s) ahead of it first" : null;
    }
}
