package io.kubequeue.scheduler.queue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import io.kubequeue.scheduler.MutableClock;
import io.kubequeue.scheduler.ledger.QuotaLedger;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.SchedulerSettings;
import io.kubequeue.scheduler.model.SchedulingPolicy;

/**
 * The queue and the ledger under it, without the rest of the core, for the unit tests of one part: a ledger holding
 * {@code tree} and a queue manager on it (default policy, backoff 1s doubling to {@code maxBackoff}, no admission
 * listeners), on a clock standing at {@code now}.
 */
public record QueueParts(QuotaLedger ledger, QueueManager queues, MutableClock clock) {

    public static QueueParts on(QuotaTree tree, Instant now, Duration maxBackoff) {
        QuotaLedger ledger = new QuotaLedger();
        ledger.replaceTree(tree, List.of());
        MutableClock clock = new MutableClock(now);
        QueueManager queues = new QueueManager(new SchedulerSettings(SchedulingPolicy.DEFAULT, Duration.ofSeconds(1),
                maxBackoff), clock, ledger);
        return new QueueParts(ledger, queues, clock);
    }
}
