package io.kubequeue.scheduler.eviction;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.Predicate;

import io.kubequeue.scheduler.ledger.QuotaLedger;
import io.kubequeue.scheduler.model.Admission;
import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.Eviction;
import io.kubequeue.scheduler.model.EvictionMarks;
import io.kubequeue.scheduler.model.EvictionOutcome;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.scheduler.model.QuotaNode;
import io.kubequeue.scheduler.queue.AdmissionListener;
import io.kubequeue.scheduler.queue.JobEntry;
import io.kubequeue.scheduler.queue.QueueManager;
import io.kubequeue.scheduler.queue.Times;

/**
 * Evictions of admitted jobs, and the admission timeout (docs/policies.md, "Admission timeout" and "Reclaim"). An
 * {@link Eviction} leaves its job charged: its quota is released only when the cluster shows the job suspended
 * ({@link #queued}), never on the write's answer alone, and its pods gone ({@link #keepsRoom}: its kind's status
 * counts none active, the pod watch sees none left), so a victim's room is never given out while it may still run.
 * A pod seen run under an admission whose group has a timeout asks for the pod-ran mark once ({@link #podRan}); a
 * job that carries it for its record never times out, after a restart too.
 *
 * <p><b>Timeout.</b> A job admitted by kube-queue (not started outside it) that suspending stops
 * ({@link JobObservation#stoppable()}) is watched from its admission time (its record's {@code admittedAt}) until a
 * pod of it is seen running ({@link #podRan}); if the timeout of its group passes first, it is evicted. The timeout
 * of a group is its own, else its nearest ancestor's, else the global setting; zero is off. After the n-th timeout
 * in an hour the job backs off {@link #TIMEOUT_BACKOFF} × 2^(n−1), at most {@link #TIMEOUT_BACKOFF_MAX}, so that a
 * job that cannot start does not take its room again at once. No timeout is decided before the pods are listed
 * ({@link #podsListed}).
 *
 * <p>Only {@code Scheduler} calls it, under its lock.
 */
public final class Evictions implements AdmissionListener {

    /** Backoff after a job's first admission timeout in an hour; doubled for each further one. */
    public static final Duration TIMEOUT_BACKOFF = Duration.ofMinutes(1);
    /** The longest backoff after an admission timeout. */
    public static final Duration TIMEOUT_BACKOFF_MAX = Duration.ofMinutes(30);

    private final Clock clock;
    private final QueueManager queues;
    private final QuotaLedger ledger;
    private final Duration globalTimeout;
    /** Admitted jobs that may time out, soonest first. */
    private final TreeSet<JobEntry> watched = new TreeSet<>(Comparator
            .comparing((JobEntry e) -> e.timeoutAt()).thenComparing(e -> e.job().key()));
    private boolean podsListed;
    /** Whether pods of a job are left, running or terminating (see {@code Scheduler.watchPods}); none by default. */
    private Predicate<JobKey> podsLeft = key -> false;

    public Evictions(Clock clock, QueueManager queues, QuotaLedger ledger, Duration globalTimeout) {
        this.clock = clock;
        this.queues = queues;
        this.ledger = ledger;
        this.globalTimeout = globalTimeout;
    }

    /**
     * Takes on {@code original}'s eviction state, for the copies {@code entries} maps its jobs to (for
     * {@code Scheduler.copy}): each job's eviction fields, the timeout watch, whether pods were listed, and the
     * same view of which jobs have pods left.
     */
    public void copyFrom(Evictions original, Map<JobEntry, JobEntry> entries) {
        podsListed = original.podsListed;
        podsLeft = original.podsLeft;
        entries.forEach((from, to) -> {
            to.eviction(from.eviction()); // a value: shared
        });
        for (JobEntry from : original.watched) {
            watched.add(entries.get(from));
        }
    }

    @Override
    public void admitted(JobEntry entry) {
        if (entry.evicting() != null && !entry.evicting().record().equals(entry.record())) {
            entry.eviction(entry.eviction().dropped()); // another admission now: the eviction was of the one before
        }
        // what the job carries counts too (a restart, another replica): the limits per hour hold across leaders
        if (entry.job().evictions() != EvictionMarks.NONE || entry.marks() != EvictionMarks.NONE) {
            // most jobs carry none
            entry.eviction(entry.eviction().withMarks(entry.marks().union(entry.job().evictions(), clock.instant())));
        }
        if (entry.job().pods().ranUnderRecord() && entry.record() != null
                && entry.record().equals(entry.job().record())) {
            // the job carries kube-queue's signed mark that a pod ran under this admission: after a restart too
            entry.eviction(entry.eviction().withPodRanUnder(entry.record()).withPodRanRecorded(entry.record()));
        }
        watch(entry);
    }

    /**
     * A job being evicted is seen running under the same admission in a copy newer than the one the eviction produced:
     * it was started again after it was suspended (its mark removed by hand, a GitOps tool putting it back), and the
     * informer never showed it suspended. The eviction is over; a reclaim that counted on it is given up.
     */
    public void seenRunning(JobEntry entry, JobObservation copy) {
        if (entry.evicting() != null && entry.evictionAppliedVersion() != null
                && copy.newerThan(entry.evictionAppliedVersion())) {
            entry.eviction(entry.eviction().over(entry.record())); // not evicted again under it: no tug of war
        }
    }

    @Override
    public void released(JobEntry entry) {
        unwatch(entry);
    }

    /** Starts watching an admitted job for its timeout, if one applies. */
    private void watch(JobEntry entry) {
        unwatch(entry);
        if (entry.state() != JobState.ADMITTED || entry.record() == null || entry.record().startedOutside()
                || !entry.job().stoppable() || entry.chargeUnknown() || entry.record().equals(entry.podRanUnder())
                || entry.evicting() != null || entry.draining() != null
                || entry.record().equals(entry.evictionRefusedUnder())) {
            return;
        }
        Duration timeout = timeoutOf(entry.chargedGroup());
        if (timeout == null) {
            return; // checked first: every admission passes here, and the parse below is not free
        }
        Instant admittedAt = admittedAt(entry.record());
        if (admittedAt == null) {
            return;
        }
        Instant timeoutAt = Times.plus(admittedAt, timeout);
        if (timeoutAt.equals(Instant.MAX)) {
            return; // past the end of time (a record dated there, a timeout of 400000000000d): it never comes
        }
        entry.eviction(entry.eviction().withTimeoutAt(timeoutAt));
        watched.add(entry);
    }

    private void unwatch(JobEntry entry) {
        if (entry.timeoutAt() != null) {
            watched.remove(entry);
            entry.eviction(entry.eviction().withTimeoutAt(null));
        }
    }

    /** The admission timeout of a group: its own, its nearest ancestor's, else the global one; null: none. */
    Duration timeoutOf(String group) {
        if (group == null) {
            return null;
        }
        for (QuotaNode node : ledger.tree().pathToRoot(group)) {
            if (node.admissionTimeout() != null) {
                return node.admissionTimeout().isZero() ? null : node.admissionTimeout();
            }
        }
        return globalTimeout;
    }

    private static Instant admittedAt(AdmissionRecord record) {
        try {
            return Instant.parse(record.admittedAt());
        } catch (DateTimeParseException e) {
            return null; // written by hand or by another tool: kube-queue cannot tell when it was admitted
        }
    }

    /** The groups changed: each admitted job's timeout is that of the group it is charged to now. */
    public void treeReplaced() {
        List<JobEntry> admitted = queues.admitted();
        watched.clear();
        for (JobEntry entry : admitted) {
            entry.eviction(entry.eviction().withTimeoutAt(null));
            watch(entry);
        }
    }

    /** See {@code Scheduler.podRan}. */
    public Admission podRan(JobKey key) {
        JobEntry entry = queues.get(key);
        if (entry == null || entry.state() != JobState.ADMITTED || entry.draining() != null) {
            return null;
        }
        entry.eviction(entry.eviction().withPodRanUnder(entry.record()));
        unwatch(entry);
        if (entry.record() == null || entry.record().startedOutside() || entry.record().equals(entry.podRanRecorded())
                || !entry.job().stoppable() || timeoutOf(entry.chargedGroup()) == null) {
            return null; // written already, or no timeout could evict it: nothing to keep across a restart
        }
        entry.eviction(entry.eviction().withPodRanRecorded(entry.record()));
        return new Admission(key, entry.job().uid(), entry.record(), entry.job().request(), 0);
    }

    /** See {@code Scheduler.podsListed}. */
    public void podsListed() {
        podsListed = true;
    }

    /** See {@code Scheduler.watchPods}. */
    public void watchPods(Predicate<JobKey> left) {
        podsLeft = left;
    }

    /**
     * Whether an evicted job seen suspended in {@code copy} keeps its charge: it was evicted by kube-queue under its
     * admission (this scheduler's eviction, or, after a restart, the marks the copy carries under the record it
     * carries), and its pods are not known to be gone: its kind's status counts some active
     * ({@link JobObservation.Pods#active()}) or the pod watch sees one running or terminating. Its room is given out
     * only once they are gone (docs/policies.md, "When a victim's room is free").
     */
    public boolean keepsRoom(JobEntry entry, JobObservation copy) {
        boolean evicted = entry.evicting() != null
                || copy.record() != null && copy.evictions().reason() != null && copy.record().equals(entry.record());
        return evicted && (copy.pods().active() || podsLeft.test(entry.job().key()));
    }

    /**
     * After a restart: whether a job first seen suspended, carrying kube-queue's eviction marks under the record it
     * carries, still has pods (see {@link #keepsRoom}): it is then charged under that record until they are gone.
     */
    public boolean keepsRoomAfterRestart(JobObservation copy) {
        return copy.record() != null && !copy.record().startedOutside() && copy.evictions().reason() != null
                && copy.stoppable() && (copy.pods().active() || podsLeft.test(copy.key()));
    }

    /**
     * An evicted job charged again after a restart while its pods drain: the eviction its marks tell of, as if this
     * scheduler had decided it (a reclaim's room counts it as leaving; it yields to its preemptor once queued).
     */
    public void drainingAfterRestart(JobEntry entry) {
        EvictionMarks carried = entry.job().evictions();
        entry.eviction(entry.eviction().started(new Eviction(entry.job().key(), entry.job().uid(), entry.record(),
                carried.reason(), carried.preemptor(), null, entry.job().request(), clock.instant(), entry.marks())));
        unwatch(entry);
    }

    /** When the next admission times out; empty if none is watched, or the pods are not listed yet. */
    public Optional<Instant> nextTimeout() {
        return !podsListed || watched.isEmpty() ? Optional.empty() : Optional.of(watched.first().timeoutAt());
    }

    /** The admissions that timed out by {@code now}, each now being evicted. */
    public List<Eviction> dueTimeouts(Instant now) {
        List<Eviction> due = new ArrayList<>();
        while (podsListed && !watched.isEmpty() && !watched.first().timeoutAt().isAfter(now)) {
            JobEntry entry = watched.pollFirst();
            entry.eviction(entry.eviction().withTimeoutAt(null));
            if (entry.record() == null || entry.record().startedOutside()) {
                continue; // re-labelled as started by hand since it was watched: not ours to suspend
            }
            due.add(evict(entry, Eviction.Reason.TIMEOUT, null, null, now));
        }
        return due;
    }

    /** Marks an admitted job as being evicted, and the decision to write. */
    Eviction evict(JobEntry entry, Eviction.Reason reason, JobKey preemptor, String preemptorGroup, Instant now) {
        unwatch(entry);
        Eviction eviction = new Eviction(entry.job().key(), entry.job().uid(), entry.record(), reason, preemptor,
                preemptorGroup, entry.job().request(), now, entry.marks().plus(reason, preemptor, now));
        entry.eviction(entry.eviction().started(eviction));
        return eviction;
    }

    /** See {@code Scheduler.settleEviction}. */
    public void settle(JobKey key, AdmissionRecord record, EvictionOutcome outcome) {
        JobEntry entry = queues.admittedAs(key, record);
        if (entry == null || entry.evicting() == null) {
            return;
        }
        if (outcome instanceof EvictionOutcome.Applied applied) {
            // the job is suspended; it is released when the informer shows it so (queued), not before. Its history is
            // what the write put on the job: this eviction at when it was written, not when it was decided
            entry.eviction(entry.eviction().applied(entry.evicting().writtenAt(applied.writtenAt()),
                    applied.resourceVersion()));
        } else if (outcome instanceof EvictionOutcome.Refused) {
            // still running under that admission: it stays charged, and is neither timed out nor a victim again
            // under it (a refusal that repeats, say from a validating policy, would loop)
            entry.eviction(entry.eviction().refused(entry.record()));
        } else if (outcome instanceof EvictionOutcome.Gone) {
            queues.forget(entry);
        } else {
            entry.eviction(entry.eviction().answerLost());
        }
    }

    /** See {@code Scheduler.evictionUnsettled}. */
    public boolean unsettled(JobKey key, AdmissionRecord record) {
        JobEntry entry = queues.admittedAs(key, record);
        return entry != null && entry.evicting() != null && entry.evictionUnconfirmed();
    }

    /**
     * A job was queued: first seen suspended, or suspended again. If kube-queue evicted it ({@code eviction}, or the
     * marks it carries, after a restart), a reclaim's victim yields to its preemptor and a timed-out one backs off.
     *
     * @param eviction the eviction of it this scheduler decided, if any
     * @return the preemptor the job now yields to; null if none
     */
    public JobKey queued(JobEntry entry, Eviction eviction) {
        EvictionMarks carried = entry.job().evictions();
        entry.eviction(entry.eviction().over());
        Instant now = clock.instant();
        // what this scheduler saw and what the job carries (another replica's evictions, a restart), together; a copy
        // that carries this very eviction (seen before the write's answer) tells the time it was written: the
        // decision's own time would count it twice
        boolean carriesIt = eviction != null && carried.reason() == eviction.reason()
                && eviction.record().equals(entry.job().record());
        EvictionMarks marks = (eviction != null && !carriesIt ? eviction.history() : entry.marks()).union(carried, now);
        entry.eviction(entry.eviction().withMarks(marks));
        Eviction.Reason reason = eviction != null ? eviction.reason() : carried.reason();
        if (reason == Eviction.Reason.TIMEOUT && entry.state() == JobState.ACTIVE && !marks.timedOutAt().isEmpty()) {
            Instant last = marks.timedOutAt().get(marks.timedOutAt().size() - 1);
            Instant retryAt = Times.plus(last, timeoutBackoff(Math.max(1, marks.timeoutsWithin(now))));
            if (retryAt.isAfter(now)) {
                queues.dequeue(entry);
                queues.countTry(entry);
                // as a refused admission: only the expiry retries it, not a release (retry on release, blocking queue)
                queues.backOffRefused(entry, retryAt);
            }
            return null;
        }
        if (reason == Eviction.Reason.RECLAIM) {
            return eviction != null ? eviction.preemptor() : carried.preemptor();
        }
        return null;
    }

    /** The backoff after the n-th admission timeout in an hour. */
    public static Duration timeoutBackoff(int n) {
        Duration d = TIMEOUT_BACKOFF;
        for (int i = 1; i < n && d.compareTo(TIMEOUT_BACKOFF_MAX) < 0; i++) {
            d = d.multipliedBy(2);
        }
        return d.compareTo(TIMEOUT_BACKOFF_MAX) > 0 ? TIMEOUT_BACKOFF_MAX : d;
    }
}
