package io.kubequeue.scheduler;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import io.kubequeue.scheduler.ledger.QuotaLedger;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.SchedulerSettings;
import io.kubequeue.scheduler.model.SchedulingPolicy;

/**
 * The core's parts without the facade, for the unit tests of one part: a ledger holding {@code tree}, the admission
 * answers, and a queue manager on them (default policy, backoff 1s doubling to {@code maxBackoff}), on a clock
 * standing at {@code now}.
 */
record CoreParts(QuotaLedger ledger, AdmissionAnswers answers, QueueManager queues, MutableClock clock) {

    static CoreParts on(QuotaTree tree, Instant now, Duration maxBackoff) {
        QuotaLedger ledger = new QuotaLedger();
        ledger.replaceTree(tree, List.of());
        AdmissionAnswers answers = new AdmissionAnswers();
        MutableClock clock = new MutableClock(now);
        QueueManager queues = new QueueManager(new SchedulerSettings(SchedulingPolicy.DEFAULT, Duration.ofSeconds(1),
                maxBackoff), clock, ledger);
        queues.reportAdmissionsTo(answers);
        return new CoreParts(ledger, answers, queues, clock);
    }
}
