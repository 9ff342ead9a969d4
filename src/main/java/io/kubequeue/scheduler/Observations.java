package io.kubequeue.scheduler;

import io.kubequeue.collections.BoundedMaps;
import io.kubequeue.scheduler.eviction.Evictions;
import io.kubequeue.scheduler.eviction.Reclaims;
import io.kubequeue.scheduler.ledger.QuotaLedger;
import io.kubequeue.scheduler.model.Admission;
import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.Eviction;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobObservation.Phase;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.scheduler.model.Observed;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.scheduler.model.Unreadable;
import io.kubequeue.scheduler.queue.JobEntry;
import io.kubequeue.scheduler.queue.QueueManager;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;

/**
 * Takes in what the cluster shows of each job ({@link JobObservation}) and moves it between queued, admitted and
 * forgotten: the rules of {@link Scheduler#observe} and {@link Scheduler#observeUnreadable}, and the re-suspension
 * rules an admission's answer also needs ({@link #settleNewest}). Only {@link Scheduler} calls it, under its lock.
 *
 * <p>Per phase of the observation:
 * <ul>
 *   <li>{@code QUEUED}: queued (or its request, priority and labels updated in place). If the job is
 *       admitted here and was already seen running, or carries the very admission record we wrote, it was
 *       suspended again: its quota is released and it is queued again. Otherwise (admitted by this cycle,
 *       not seen running yet) the copy is older than our patch, or was written while the patch was on its
 *       way; it is kept, and applied if the admission is handed back (so an edit made meanwhile is never
 *       lost). If our admission's answer was lost, such a copy is the cue to read the job back at once
 *       ({@link Observed#unconfirmed()}).</li>
 *   <li>{@code ADMITTED}: charged to the group its record names (start-up recovery, or another
 *       replica's admission); under a record the job was seen suspended with since, as {@code STARTED_DESPITE_MARK}
 *       (it was started by hand).</li>
 *   <li>{@code UNSUSPENDED_WITHOUT_RECORD}: ignored unless the job was queued here; then it was started
 *       behind our back and is charged to its group, so quota is never over-admitted.</li>
 *   <li>{@code STARTED_DESPITE_MARK}: as {@code UNSUSPENDED_WITHOUT_RECORD}, and charged even if the job was
 *       never seen before: it carries our mark, yet runs.</li>
 *   <li>{@code FINISHED}: forgotten, its quota released; a finished job is never charged again, and a later
 *       observation of the same uid (a reconcile that read it before it ended) is ignored.</li>
 * </ul>
 */
final class Observations {

    private static final int ENDED_REMEMBERED = 50_000;

    private final Clock clock;
    private final QueueManager queues;
    private final QuotaLedger ledger;
    private final AdmissionAnswers answers;
    private final AdmissionClock admissionClock;
    private Evictions evictions;
    private Reclaims reclaims;
    /**
     * uids of jobs seen finished or deleted, newest last, so that a reconcile still holding an older copy cannot
     * bring one back (bounded: a uid is unique, and old copies are seconds old at most).
     */
    private final Map<String, Boolean> ended = BoundedMaps.keepingNewest(ENDED_REMEMBERED);
    /**
     * Jobs withdrawn from the queue because their request could not be read (key to uid, newest last, bounded):
     * they were queued here, so one later seen running without our record is charged as started outside.
     */
    private final Map<JobKey, String> withdrawn = BoundedMaps.keepingNewest(ENDED_REMEMBERED);

    Observations(Clock clock, QueueManager queues, QuotaLedger ledger, AdmissionAnswers answers,
                 AdmissionClock admissionClock) {
        this.clock = clock;
        this.queues = queues;
        this.ledger = ledger;
        this.answers = answers;
        this.admissionClock = admissionClock;
    }

    /** Where a job queued by an eviction goes: a reclaim's victim yields, a timed-out one backs off. */
    void evictionsGoTo(Evictions evictions, Reclaims reclaims) {
        this.evictions = evictions;
        this.reclaims = reclaims;
    }

    /**
     * Takes on {@code original}'s memory of ended and withdrawn jobs, and each job's draining copy and spent records,
     * for the copies {@code entries} maps its jobs to (for {@link Scheduler#copy}).
     */
    void copyFrom(Observations original, Map<JobEntry, JobEntry> entries) {
        ended.putAll(original.ended);
        withdrawn.putAll(original.withdrawn);
        entries.forEach((from, to) -> {
            to.draining(from.draining());
            to.spentUpTo(from.spentUpTo());
        });
    }

    /** See {@link Scheduler#observe}; reports what changed. */
    Observed observe(JobObservation observation) {
        observation = resumedUnderSpentRecord(observation);
        JobKey key = observation.key();
        JobEntry before = queues.get(key);
        JobState stateBefore = before == null ? null : before.state();
        AdmissionRecord recordBefore = before == null ? null : before.record();
        boolean stale = !apply(observation);
        if (!stale) {
            noteSpentRecord(observation);
        }
        JobEntry after = queues.get(key);
        JobState state = after == null ? null : after.state();
        boolean released = stateBefore == JobState.ADMITTED && state != JobState.ADMITTED;
        boolean held = after != null;
        Observed.Change change;
        if (stale) {
            change = Observed.Change.STALE;
        } else if (after == null) {
            change = before == null ? Observed.Change.IGNORED : Observed.Change.FORGOTTEN;
        } else if (state != JobState.ADMITTED) {
            change = stateBefore == null ? Observed.Change.QUEUED
                    : stateBefore == JobState.ADMITTED ? Observed.Change.REQUEUED : Observed.Change.UPDATED;
        } else if ((observation.phase() == Phase.UNSUSPENDED_WITHOUT_RECORD
                || observation.phase() == Phase.STARTED_DESPITE_MARK) && after.record().startedOutside()
                && after.record().group() != null && !after.record().equals(recordBefore)) {
            change = Observed.Change.CHARGED_STARTED_OUTSIDE;
        } else {
            change = stateBefore == JobState.ADMITTED ? Observed.Change.UPDATED : Observed.Change.CHARGED;
        }
        Admission unconfirmed = observation.phase() == Phase.QUEUED ? unconfirmedAdmission(key) : null;
        return new Observed(change, after == null ? null : after.currentGroup(),
                state == JobState.ADMITTED ? after.record() : null, held, released, unconfirmed);
    }

    /** The admission of this job whose answer was lost, if any; see {@link Scheduler#unconfirmedAdmission}. */
    Admission unconfirmedAdmission(JobKey key) {
        JobEntry entry = queues.get(key);
        if (entry == null || entry.state() != JobState.ADMITTED || !entry.unconfirmed()) {
            return null;
        }
        return new Admission(key, entry.job().uid(), entry.record(), entry.job().request(), 0,
                entry.job().resourceVersion());
    }

    /** Applies one observation; false if it was stale and ignored. */
    private boolean apply(JobObservation observation) {
        admissionClock.noteRecord(observation.record());
        if (observation.uid() != null) {
            if (observation.phase() == Phase.FINISHED) {
                ended.put(observation.uid(), Boolean.TRUE);
            } else if (ended.containsKey(observation.uid())) {
                return false; // an older copy of a job already seen finished or deleted
            }
        }
        if (observation.phase() == Phase.FINISHED && anotherJob(queues.get(observation.key()), observation)) {
            return false; // an older job of the same name ended; the one we hold is another
        }
        JobEntry entry = currentEntry(observation);
        observation = asWithdrawnJob(entry, observation);
        if (observation.phase() != Phase.UNSUSPENDED_WITHOUT_RECORD) {
            forgetWithdrawn(observation);
        }
        switch (observation.phase()) {
            case FINISHED -> {
                if (entry != null) {
                    queues.forget(entry);
                }
            }
            case QUEUED -> {
                if (entry == null && evictions != null && evictions.keepsRoomAfterRestart(observation)) {
                    // evicted, and its pods still run or terminate (seen after a restart): charged until they are gone
                    entry = queues.newEntry(observation);
                    entry.draining(observation);
                    queues.admit(entry, observation.record(), false);
                    answers.ran(entry);
                    evictions.drainingAfterRestart(entry);
                } else if (entry == null) {
                    entry = queues.newEntry(observation);
                    queues.activate(entry);
                    queuedByEviction(entry, null); // after a restart, the marks it carries tell
                } else if (entry.state() == JobState.ADMITTED) {
                    if (suspendedAgain(entry, observation) && evictions != null
                            && evictions.keepsRoom(entry, observation)) {
                        entry.draining(observation); // evicted, its pods not gone yet: its room stays taken
                    } else if (suspendedAgain(entry, observation)) {
                        entry.draining(null);
                        queueAgain(entry, observation);
                    } else {
                        // older than our patch, or written while it was on its way (then our patch, bound to the
                        // version decided on, is refused, unless the core rebinds it to this copy: see rebind):
                        // kept, and applied if the admission is handed back. A lost answer is settled by a read
                        // (unconfirmedAdmission)
                        answers.newestSeen(entry, observation, false);
                    }
                } else {
                    queues.update(entry, observation);
                }
            }
            case ADMITTED -> {
                AdmissionRecord record = observation.record();
                if (entry != null && entry.state() == JobState.ADMITTED && entry.chargeUnknown()) {
                    queues.release(entry, false); // its request can be read again: charged what it asks from now on
                }
                if (entry == null) {
                    entry = queues.newEntry(observation);
                    queues.admit(entry, record, false, observation.admittedRequest()); // what its pods were made from
                } else if (entry.state() != JobState.ADMITTED) {
                    queues.dequeue(entry);
                    queues.replaceCopy(entry, observation);
                    queues.admit(entry, record, false, observation.admittedRequest());
                } else if (record.equals(entry.record()) && (sameCharge(observation, entry.job())
                        || entry.seenRunning() && keepsCharge(entry, observation))) {
                    queues.replaceCopy(entry, QueueManager.keepCreation(observation, entry.job())); // e.g. ours, seen
                } else {
                    // another admission, or the running job's request changed (e.g. parallelism raised): charge what
                    // it uses now, even above max, so nothing else is admitted into that room; under the same
                    // admission never less than before, since its pods may still hold that (none of the kinds resizes
                    // running pods when its request is lowered: docs/behaviour.md, "A running job's charge"). Its
                    // first running copy is what its pods are made from: until then the charge was the decision's
                    Resources floor = record.equals(entry.record()) && entry.seenRunning() ? entry.charged()
                            : observation.admittedRequest();
                    queues.release(entry, true);
                    queues.replaceCopy(entry, QueueManager.keepCreation(observation, entry.job()));
                    queues.admit(entry, record, false, floor);
                }
                answers.seenRunning(entry); // it runs: whatever our patch did is settled
                entry.draining(null); // started again while its pods drained: it simply runs on
                if (evictions != null) {
                    evictions.seenRunning(entry, observation);
                }
            }
            case UNSUSPENDED_WITHOUT_RECORD, STARTED_DESPITE_MARK -> startedOutside(entry, observation);
        }
        return true;
    }

    /** A job that runs without our record: charged as started outside if it was queued here (see observe). */
    private void startedOutside(JobEntry entry, JobObservation observation) {
        if (entry != null && entry.state() == JobState.ADMITTED && entry.chargeUnknown()) {
            queues.release(entry, false); // its request can be read again: charged as started outside, below
        }
        if (entry == null && observation.phase() == Phase.STARTED_DESPITE_MARK) {
            entry = queues.newEntry(observation); // in no queue: the branch below charges it
        }
        if (entry != null && entry.state() != JobState.ADMITTED) {
            queues.dequeue(entry);
            queues.replaceCopy(entry, observation);
            queues.admit(entry, new AdmissionRecord(ledger.groupOf(observation), AdmissionRecord.STARTED_OUTSIDE),
                    false);
        } else if (entry != null) {
            // started by hand while our admission was in flight: our patch will be refused (its test op finds no
            // mark), and that refusal must not uncharge a running job, so the charge is re-labelled, at what the job
            // asks now (it may have been edited since the decision); once seen running without our record, it is
            // charged what it asks now (more or less)
            boolean inFlight = !entry.seenRunning() && !entry.record().startedOutside();
            if (inFlight || entry.seenRunning() && !sameCharge(observation, entry.job())
                    && !keepsCharge(entry, observation)) {
                AdmissionRecord record = inFlight
                        ? new AdmissionRecord(entry.record().group(), AdmissionRecord.STARTED_OUTSIDE) : entry.record();
                // seen running: never less than before (its pods may still hold it); started by hand while our
                // patch was on its way, its pods were made from what it asks now
                Resources floor = inFlight ? null : entry.charged();
                queues.release(entry, false);
                queues.replaceCopy(entry, QueueManager.keepCreation(observation, entry.job()));
                queues.admit(entry, record, false, floor);
            }
        }
        if (entry != null && entry.state() == JobState.ADMITTED) {
            answers.seenRunning(entry);
            entry.draining(null); // started by hand while its pods drained: it runs on, charged
        }
    }

    /** See {@link Scheduler#observeUnreadable}. */
    Unreadable observeUnreadable(JobObservation observation) {
        admissionClock.noteRecord(observation.record());
        if (observation.uid() != null && ended.containsKey(observation.uid())) {
            return Unreadable.IGNORED;
        }
        if (observation.phase() == Phase.FINISHED) {
            throw new IllegalArgumentException("a finished job has no request to read: " + observation.key());
        }
        observation = resumedUnderSpentRecord(observation);
        JobEntry entry = currentEntry(observation);
        Phase phase = asWithdrawnJob(entry, observation).phase();
        if (phase == Phase.QUEUED) {
            if (entry != null && entry.state() == JobState.ADMITTED && !suspendedAgain(entry, observation)) {
                // our admission is on its way and settles this; if it is handed back, the job is withdrawn
                answers.newestSeen(entry, observation, true);
                return Unreadable.KEPT;
            }
            if (entry != null) {
                withdraw(entry);
            } else {
                withdrawn.put(observation.key(), observation.uid() == null ? "" : observation.uid());
            }
            return Unreadable.WITHDRAWN;
        }
        forgetWithdrawn(observation);
        if (entry != null && entry.state() == JobState.ADMITTED) {
            if (phase != Phase.ADMITTED && !entry.seenRunning() && !entry.record().startedOutside()) {
                // started by hand while our admission was on its way: a refusal must not uncharge it (see observe)
                ledger.relabelStartedOutside(entry);
            }
            answers.seenRunning(entry);
            return entry.chargeUnknown() ? Unreadable.HOLDS_GROUP : Unreadable.KEPT;
        }
        if (entry == null && phase == Phase.UNSUSPENDED_WITHOUT_RECORD) {
            return Unreadable.IGNORED;
        }
        if (entry == null) {
            entry = queues.newEntry(observation);
        } else {
            queues.dequeue(entry);
            queues.replaceCopy(entry, QueueManager.keepCreation(observation, entry.job()));
        }
        AdmissionRecord record = phase == Phase.ADMITTED ? observation.record()
                : new AdmissionRecord(ledger.groupOf(observation), AdmissionRecord.STARTED_OUTSIDE);
        queues.admit(entry, record, true);
        answers.ran(entry);
        return Unreadable.HOLDS_GROUP;
    }

    /**
     * A running copy whose record is spent: the job was seen suspended with that record or a newer one since (its
     * user suspended it again, or kube-queue's eviction did, which leaves the record on it). kube-queue did not admit
     * this start: its mark was removed by hand (with the old record kept, or one signed for an earlier admission of
     * the same job written back). It is read as such ({@code STARTED_DESPITE_MARK}: charged as started outside in its
     * own group, and counted above it only up to the group's max), never as kube-queue's admission under a record
     * that would count it in full above its group (issue 25, review). Another replica's admission is newer than every
     * record it saw on the job (see {@link AdmissionClock}), and is not affected.
     */
    private JobObservation resumedUnderSpentRecord(JobObservation observation) {
        if (observation.phase() != Phase.ADMITTED || observation.record() == null) {
            return observation;
        }
        JobEntry entry = queues.get(observation.key());
        if (entry == null || anotherJob(entry, observation)
                || entry.state() == JobState.ADMITTED && observation.record().equals(entry.record())) {
            return observation; // the admission this scheduler decided or took in, seen through
        }
        return spent(entry, observation.record()) ? observation.inPhase(Phase.STARTED_DESPITE_MARK) : observation;
    }

    /** Whether the job was seen suspended with this record, or a newer one, since it was admitted under it. */
    boolean spent(JobEntry entry, AdmissionRecord record) {
        Instant admittedAt = record == null || entry.spentUpTo() == null ? null : admittedAt(record);
        return admittedAt != null && !admittedAt.isAfter(entry.spentUpTo());
    }

    /** A suspended copy that carries a record: that record, and every older one of the job, is spent. */
    private void noteSpentRecord(JobObservation observation) {
        if (observation.phase() != Phase.QUEUED || observation.record() == null) {
            return;
        }
        JobEntry entry = queues.get(observation.key());
        if (entry != null && !anotherJob(entry, observation)) {
            spend(entry, observation.record());
        }
    }

    /**
     * Every record of the job up to this one is spent: it queued again since (see resumedUnderSpentRecord). A record
     * dated further ahead than {@link AdmissionClock} moves past is not taken (a replica's clock that ran ahead):
     * admissions decided since would be dated before it, and must not read as spent.
     */
    private void spend(JobEntry entry, AdmissionRecord record) {
        Instant admittedAt = record == null ? null : admittedAt(record);
        if (admittedAt != null && !admittedAt.isAfter(clock.instant().plus(AdmissionClock.RECORD_CLOCK_SKEW))
                && (entry.spentUpTo() == null || admittedAt.isAfter(entry.spentUpTo()))) {
            entry.spentUpTo(admittedAt);
        }
    }

    /** A record's admission time; null for a started-outside record (or one that does not read). */
    private static Instant admittedAt(AdmissionRecord record) {
        try {
            return Instant.parse(record.admittedAt());
        } catch (java.time.format.DateTimeParseException e) {
            return null;
        }
    }

    /** Whether the core manages the job: it holds it, or withdrew it as unreadable (see {@link Scheduler#manages}). */
    boolean manages(JobKey key) {
        return queues.get(key) != null || withdrawn.containsKey(key);
    }

    /**
     * The job was seen running at {@code version} (our patch's answer, or a read): a suspended copy kept while the
     * admission was on its way that is newer than that is a re-suspension, which arrived first. It releases the
     * charge and queues the job again, or, if that copy's request cannot be read, withdraws it. An older copy is
     * dropped: the running copy follows.
     */
    void settleNewest(JobEntry entry, String version) {
        JobObservation newest = entry.newest();
        boolean unreadable = entry.newestUnreadable();
        answers.newestTaken(entry);
        if (newest == null || !newest.newerThan(version)) {
            return;
        }
        if (unreadable) {
            queues.release(entry, true);
            withdraw(entry);
            return;
        }
        queueAgain(entry, newest);
    }

    /** An admitted job was suspended again, as {@code copy} shows: its quota goes back, and it queues again. */
    private void queueAgain(JobEntry entry, JobObservation copy) {
        Eviction eviction = entry.evicting();
        spend(entry, entry.record()); // also when the copy no longer carries it (e.g. the manifest applied again)
        queues.release(entry, true);
        queues.queueAgain(entry, copy, clock.instant()); // its tries and its wait start again (metrics, events)
        queuedByEviction(entry, eviction);
    }

    /** A job just queued that kube-queue evicted ({@code eviction}, or as it carries): yields, or backs off. */
    private void queuedByEviction(JobEntry entry, Eviction eviction) {
        if (evictions == null) {
            return;
        }
        JobKey preemptor = evictions.queued(entry, eviction);
        if (preemptor != null && entry.state() != JobState.ADMITTED) {
            reclaims.yieldTo(entry, preemptor);
        }
    }

    /**
     * See {@link Scheduler#podsChanged}: an evicted job whose pods were draining is queued once they are gone.
     *
     * @return whether its charge was released
     */
    boolean podsChanged(JobKey key) {
        JobEntry entry = queues.get(key);
        return entry != null && releaseIfDrained(entry);
    }

    /** Every evicted job whose pods were draining is checked again (the pods were listed); whether one was released. */
    boolean recheckDraining() {
        boolean released = false;
        for (JobEntry entry : queues.admitted()) {
            released |= releaseIfDrained(entry);
        }
        return released;
    }

    private boolean releaseIfDrained(JobEntry entry) {
        JobObservation copy = entry.draining();
        if (copy == null || entry.state() != JobState.ADMITTED || evictions.keepsRoom(entry, copy)) {
            return false;
        }
        entry.draining(null);
        queueAgain(entry, copy);
        return true;
    }

    /** A job out of the queue until its request can be read; if it is then started by hand, it is charged. */
    void withdraw(JobEntry entry) {
        queues.forget(entry);
        withdrawn.put(entry.job().key(), entry.job().uid() == null ? "" : entry.job().uid());
    }

    private boolean wasWithdrawn(JobObservation observation) {
        String uid = withdrawn.get(observation.key());
        return uid != null && (uid.isEmpty() || observation.uid() == null || uid.equals(observation.uid()));
    }

    /** Whether the entry held under this key is of another job (an older or newer object of the same name). */
    private static boolean anotherJob(JobEntry entry, JobObservation observation) {
        return entry != null && observation.uid() != null && entry.job().uid() != null
                && !observation.uid().equals(entry.job().uid());
    }

    /**
     * The entry of this very job, or null: one held for another object of the same name is forgotten (deleted and
     * created again, whose delete may never be seen on its own), its quota released.
     */
    private JobEntry currentEntry(JobObservation observation) {
        JobEntry entry = queues.get(observation.key());
        if (anotherJob(entry, observation)) {
            queues.forget(entry);
            return null;
        }
        return entry;
    }

    /** A job not held but withdrawn earlier, now running without our record, was queued here: managed as such. */
    private JobObservation asWithdrawnJob(JobEntry entry, JobObservation observation) {
        return entry == null && observation.phase() == Phase.UNSUSPENDED_WITHOUT_RECORD
                && wasWithdrawn(observation) ? observation.inPhase(Phase.STARTED_DESPITE_MARK) : observation;
    }

    /**
     * Whether a suspended copy of an admitted job means it was suspended again: it was seen running since its
     * charge, or the copy carries the very record we wrote, or is newer than what our patch produced. (Events of
     * one object arrive in order, so nothing older can follow a running state.)
     */
    private static boolean suspendedAgain(JobEntry entry, JobObservation copy) {
        return entry.seenRunning() || copy.record() != null && copy.record().equals(entry.record())
                || copy.newerThan(entry.confirmedVersion());
    }

    /** The job is seen otherwise than withdrawn; the end of an older namesake leaves a withdrawn job remembered. */
    private void forgetWithdrawn(JobObservation observation) {
        String uid = withdrawn.get(observation.key());
        boolean olderNamesakeEnded = observation.phase() == Phase.FINISHED && uid != null
                && !uid.isEmpty() && observation.uid() != null && !uid.equals(observation.uid());
        if (uid != null && !olderNamesakeEnded) {
            withdrawn.remove(observation.key());
        }
    }

    /**
     * Whether a running job's new copy leaves its charge as it is: as preemptible as before, and asking nothing above
     * the charge (a lower request keeps the higher charge: its pods may still hold it).
     */
    private static boolean keepsCharge(JobEntry entry, JobObservation copy) {
        if (entry.chargeUnknown() || copy.preemptible() != entry.job().preemptible()) {
            return false;
        }
        for (Map.Entry<String, Long> r : copy.request().asMap().entrySet()) {
            if (r.getValue() > entry.charged().get(r.getKey())) {
                return false;
            }
        }
        return true;
    }

    /** Whether the two copies of a job would be charged alike: the same request, both (non-)preemptible. */
    private static boolean sameCharge(JobObservation a, JobObservation b) {
        return a.request().equals(b.request()) && a.preemptible() == b.preemptible();
    }
}
