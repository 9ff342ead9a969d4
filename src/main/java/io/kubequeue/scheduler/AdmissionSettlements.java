package io.kubequeue.scheduler;

import java.time.Clock;
import java.util.Objects;
import java.util.Optional;

import io.kubequeue.scheduler.ledger.QuotaLedger;
import io.kubequeue.scheduler.model.AdmissionOutcome;
import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.scheduler.model.QuotaNode;
import io.kubequeue.scheduler.queue.JobEntry;
import io.kubequeue.scheduler.queue.QueueManager;
import io.kubequeue.scheduler.queue.Times;

/**
 * Settles an admission the core decided, once the admission side knows what became of it ({@link AdmissionOutcome}):
 * "what happens when a patch is refused", and every other end, in one place. An answer about an admission the job
 * has moved on from (another record) changes nothing. Only {@link Scheduler} calls it, under its lock.
 */
final class AdmissionSettlements {

    private final Clock clock;
    private final QueueManager queues;
    private final QuotaLedger ledger;
    private final AdmissionAnswers answers;
    private final QueuePolicy policy;
    private final Observations observations;

    AdmissionSettlements(Clock clock, QueueManager queues, QuotaLedger ledger, AdmissionAnswers answers,
                         QueuePolicy policy, Observations observations) {
        this.clock = clock;
        this.queues = queues;
        this.ledger = ledger;
        this.answers = answers;
        this.policy = policy;
        this.observations = observations;
    }

    /** See {@link Scheduler#settle}. */
    Optional<AdmissionRecord> settle(JobKey key, AdmissionRecord record, AdmissionOutcome outcome) {
        JobEntry entry = queues.admittedAs(key, record);
        if (entry == null) {
            return Optional.empty();
        }
        if (outcome instanceof AdmissionOutcome.Applied applied) {
            // a later version carrying a suspend mark again is a re-suspension, even if the running state in between
            // was never observed, and even if that version reached the core before this answer did
            answers.confirmed(entry, applied.resourceVersion());
            observations.settleNewest(entry, applied.resourceVersion());
        } else if (outcome instanceof AdmissionOutcome.Refused refusal) {
            refused(entry, refusal.changedTo());
        } else if (outcome instanceof AdmissionOutcome.Gone) {
            queues.forget(entry);
        } else if (outcome instanceof AdmissionOutcome.StartedByHand started) {
            // the charge is kept, re-labelled as started outside kube-queue: the refusal frees no room the job uses
            ledger.relabelStartedOutside(entry);
            answers.confirmed(entry, started.resourceVersion());
            AdmissionRecord kept = entry.record();
            observations.settleNewest(entry, started.resourceVersion());
            return entry.state() == JobState.ADMITTED ? Optional.of(kept) : Optional.empty();
        } else if (outcome instanceof AdmissionOutcome.TakenOver taken && observations.spent(entry, taken.found())) {
            // not another replica's: a record the job was seen suspended with since, kept as it was started by hand
            return settle(key, record, new AdmissionOutcome.StartedByHand(taken.resourceVersion()));
        } else if (outcome instanceof AdmissionOutcome.TakenOver taken) {
            takenOver(entry, taken);
        } else if (outcome instanceof AdmissionOutcome.Unknown && !entry.seenRunning()
                && entry.confirmedVersion() == null) {
            answers.lost(entry);
        }
        return Optional.empty();
    }

    /**
     * Refused: the charge is undone and the job goes to backoff, and is not retried before it expires, even by a
     * release (else a refusal that repeats, say from a validating policy, would loop). Under the blocking queue it
     * still blocks its group, since it stays ahead of the jobs behind it. The room it frees is a release for the
     * others. An edit seen while the admission was on its way wins; one whose request cannot be read withdraws it.
     * A refusal because the job changed since the decision ({@code changedTo} set: the patch is bound to the version
     * decided on) is not the job's fault and would not repeat: it is decided again at once on the newest copy seen,
     * with no backoff and no attempt counted, or, if no newer copy has arrived yet, on the first that does.
     */
    private void refused(JobEntry entry, String changedTo) {
        String decidedAt = entry.job().resourceVersion();
        String chargedGroup = entry.chargedGroup();
        JobObservation newest = entry.newest();
        boolean newestUnreadable = entry.newestUnreadable();
        queues.release(entry, false); // nothing ran: no pods to keep counting
        policy.released(chargedGroup); // the room is free for the others; the refused job waits out its backoff
        if (newestUnreadable) {
            observations.withdraw(entry); // its newest copy cannot be read: out of the queue until it is fixed
            return;
        }
        if (newest != null) {
            queues.replaceCopy(entry, QueueManager.keepCreation(newest, entry.job()));
        }
        boolean changed = changedTo != null;
        boolean newerSeen = changed && decidedAt != null && !decidedAt.equals(entry.job().resourceVersion());
        queues.outdatedAt(entry, null);
        if (!changed) {
            queues.countTry(entry); // a change since the decision is no failed try, seen yet or not
        }
        Optional<QuotaNode> group = ledger.tree().groupFor(entry.job().key().namespace(), entry.job().quotaName());
        if (group.isEmpty()) {
            queues.activate(entry); // holds it, saying why
            return;
        }
        if (newerSeen) {
            queues.activate(entry); // decided again on what it is now
            return;
        }
        if (changed) {
            queues.outdatedAt(entry, decidedAt); // the informer's copy of the change ends this backoff
        }
        queues.backOffRefused(entry, group.get().name(),
                Times.plus(clock.instant(), queues.backoffFor(entry.ownAttempts())));
    }

    /**
     * Another replica admitted it (a leader change mid-stream): the charge moves to the record found at once, rather
     * than being handed back until the informer catches up (which would free room the job uses).
     */
    private void takenOver(JobEntry entry, AdmissionOutcome.TakenOver taken) {
        String before = entry.chargedGroup();
        JobObservation newest = entry.newest();
        boolean newestUnreadable = entry.newestUnreadable();
        queues.release(entry, false);
        queues.admit(entry, taken.found(), false);
        answers.confirmed(entry, taken.resourceVersion());
        if (!Objects.equals(before, entry.chargedGroup())) {
            policy.released(before);
        }
        answers.newestSeen(entry, newest, newestUnreadable);
        observations.settleNewest(entry, taken.resourceVersion());
    }

    /** See {@link Scheduler#rebind}. */
    boolean rebind(JobKey key, AdmissionRecord record, String version) {
        JobEntry entry = queues.admittedAs(key, record);
        if (entry == null || version == null || entry.seenRunning() || entry.newestUnreadable()
                || entry.newest() == null) {
            return false;
        }
        JobObservation decided = entry.job();
        JobObservation copy = entry.newest();
        boolean alike = version.equals(copy.resourceVersion()) && Objects.equals(decided.uid(), copy.uid())
                && decided.request().equals(copy.request()) && decided.preemptible() == copy.preemptible()
                && Objects.equals(decided.quotaName(), copy.quotaName()) && decided.priority().equals(copy.priority());
        if (!alike) {
            return false;
        }
        queues.replaceCopy(entry, QueueManager.keepCreation(copy, decided));
        answers.newestTaken(entry);
        return true;
    }

    /** Whether this admission's outcome is still unknown; see {@link Scheduler#admissionUnsettled}. */
    boolean unsettled(JobKey key, AdmissionRecord record) {
        JobEntry entry = queues.admittedAs(key, record);
        return entry != null && entry.unconfirmed();
    }
}
