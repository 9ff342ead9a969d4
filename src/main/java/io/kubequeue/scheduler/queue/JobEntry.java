package io.kubequeue.scheduler.queue;

import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.kubequeue.scheduler.ledger.Charge;
import io.kubequeue.scheduler.ledger.Chargeable;
import io.kubequeue.scheduler.ledger.QuotaLedger;
import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.Eviction;
import io.kubequeue.scheduler.model.EvictionMarks;
import io.kubequeue.scheduler.model.Hold;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.scheduler.model.JobStatus;
import io.kubequeue.scheduler.model.PriorityClasses;
import io.kubequeue.scheduler.model.Resources;

/**
 * One job as the core holds it, pending or admitted. Only the core touches it, always under {@code Scheduler}'s lock,
 * and each field has one writing class, its owner (docs/architecture.md, "Who owns what"; held by
 * {@code ArchitectureTest}): the placement ({@link #state}, {@link #group}, {@link #attempts}, the retry time, the
 * hold, the copy decided on) is {@link QueueManager}'s, the charge ({@link #charge}) {@link QuotaLedger}'s, the
 * admission's answer ({@link AdmissionAnswer}, one value, and {@link #seenRunning}) {@code AdmissionAnswers}', the
 * eviction state ({@link EvictionState}, one value) {@code Evictions}'. The parts above the queue read them through
 * the accessors, and write only their own, through the setters of the same name.
 *
 * <p>The fields that place a job in a sorted set ({@link #priority}, its request and preemptibility) change only while
 * it is in no sorted set (see {@link QueueOrder}).
 */
public final class JobEntry implements Chargeable {
    JobObservation job;
    /** The resolved priority, cached for queue order; changed only while out of every sorted set. */
    int priority;
    /** When the job was last queued (first seen, or suspended again), as {@link Times#nanos}: read {@link #queuedAt()}. */
    private long queuedAt;
    JobState state;
    /** The group it queues in (pending); null if none. */
    String group;
    /** Its tries; while it is in a {@link #wave}, the wave's (read {@link #attempts()}). */
    int attempts;
    /**
     * When a backed-off job is tried again, as {@link Times#nanos} ({@link Times#NO_TIME}: not backed off); while it
     * is in a {@link #wave}, the wave's (read {@link #retryAt()}).
     */
    private long retryAt = Times.NO_TIME;
    /** The backed-off jobs it waits with, or null (see {@link BackoffWave}). */
    BackoffWave wave;
    /** What it is charged while admitted ({@link QuotaLedger}'s); null while pending. Read it through the accessors. */
    private Charge charge;
    /** The job was seen running (unsuspended) since its charge: a suspend mark seen now is a re-suspension. */
    boolean seenRunning;
    /**
     * In backoff after a refused admission or an admission timeout: only the backoff's expiry retries it. Written only
     * by {@link QueueManager} (activate clears it, {@code backOffRefused} sets it, {@code endRefusal} clears it); read
     * only while the job is pending.
     */
    boolean refused;
    /** What few jobs carry (see {@link Extras}); null while all of it is at its default. */
    private Extras extras;
    /** Its slot in the {@link QueuedSince} it is in, if any; read only by that set. */
    int sinceSlot = -1;
    /** Its slot in the core's global backoff order ({@link QueueManager}), if it is in it; read only by that heap. */
    int retrySlot = -1;
    /** Its slot in its {@link #wave}'s members ({@link BackoffWave#members}), if in one; read only by that heap. */
    int waveSlot = -1;

    /** The request plus one job of the {@link Resources#MAX_JOBS} pseudo-resource; kept, as fit checks are hot. */
    private Resources effectiveRequest;

    JobEntry(JobObservation job, Instant queuedAt, int priority) {
        this.job = job;
        this.queuedAt = Times.nanos(queuedAt);
        this.priority = priority;
        this.effectiveRequest = shared(job.request().with(Resources.MAX_JOBS, 1));
    }

    /** Only while the entry is in no sorted set: its priority may change. */
    void setJob(JobObservation next, PriorityClasses classes) {
        if (!next.request().equals(job.request())) {
            effectiveRequest = shared(next.request().with(Resources.MAX_JOBS, 1));
        }
        // the key instance the core's maps hold (the first seen), not each read's equal copy (issue 27)
        this.job = next.withKey(job.key());
        this.priority = classes.resolve(next.priority());
    }

    /** The resolved priority, for queue order ({@link QueueManager}'s). */
    public int priority() {
        return priority;
    }

    /** Where it stands ({@link QueueManager}'s); null between a release and what the caller does next. */
    public JobState state() {
        return state;
    }

    /** The group it queues in while pending ({@link QueueManager}'s); null if none. */
    public String group() {
        return group;
    }

    /** The backed-off jobs it waits with, or null ({@link QueueManager}'s). */
    public BackoffWave wave() {
        return wave;
    }

    /** In backoff after a refused admission or an admission timeout ({@link QueueManager}'s; see {@link #refused}). */
    public boolean refused() {
        return refused;
    }

    /** Seen running since its charge (the admission tracker's, {@code AdmissionAnswers}). */
    public boolean seenRunning() {
        return seenRunning;
    }

    /** Only the admission tracker ({@code AdmissionAnswers}) sets it. */
    public void seenRunning(boolean seen) {
        seenRunning = seen;
    }

    /** Its own tries, not its wave's (what it carries once it leaves a wave; {@link #attempts()} reads the wave's). */
    public int ownAttempts() {
        return attempts;
    }

    /** How many times it was tried and did not fit, or had its admission refused. */
    public int attempts() {
        return wave != null ? wave.attempts : attempts;
    }

    /** When a backed-off job is tried again; null otherwise. */
    public Instant retryAt() {
        return wave != null ? wave.retryAt : Times.instant(retryAt);
    }

    /** {@link #retryAt()} as {@link Times#nanos}: queue order compares it without making an Instant. */
    long retryAtNanos() {
        return wave != null ? Times.nanos(wave.retryAt) : retryAt;
    }

    /** Its own retry time, not its wave's; null if none. */
    Instant ownRetryAt() {
        return Times.instant(retryAt);
    }

    /** Whether it has a retry time of its own (not its wave's). */
    boolean hasOwnRetryAt() {
        return retryAt != Times.NO_TIME;
    }

    void setRetryAt(Instant at) {
        retryAt = Times.nanos(at);
    }

    /** When the job was last queued (first seen, or suspended again). */
    public Instant queuedAt() {
        return Times.instant(queuedAt);
    }

    /** {@link #queuedAt()} as {@link Times#nanos}. */
    long queuedAtNanos() {
        return queuedAt;
    }

    void queuedAt(Instant at) {
        queuedAt = Times.nanos(at);
    }

    @Override
    public Resources effectiveRequest() {
        return effectiveRequest;
    }

    @Override
    public JobObservation job() {
        return job;
    }

    @Override
    public Charge charge() {
        return charge;
    }

    @Override
    public void charge(Charge next) {
        charge = next;
    }

    /** The group the job is counted in: where it is charged if admitted, else where it queues. */
    public String currentGroup() {
        return state == JobState.ADMITTED ? chargedGroup() : group;
    }

    /** A read-only copy of where it stands. */
    public JobStatus status() {
        return new JobStatus(job.key(), state, currentGroup(), job.request(), priority, attempts(), retryAt(),
                hold(), record());
    }

    /**
     * The fields few jobs set: the admission's answer and what came meanwhile, evictions, reclaims, pods seen running,
     * draining, the admission timeout, spent records, the last hold, where an admitted job is counted. A pending job that was never admitted nor evicted
     * has them all at their defaults and holds no {@code Extras} (issue 27: they were 18 of JobEntry's 29 fields, ~70
     * bytes per pending job); it is made on the first set to a non-default value and let go when all are back at
     * their defaults. Read and set them through the accessors of the same name.
     */
    private static final class Extras {
        /** What is known of its admission's answer ({@code AdmissionAnswers}'), or null for {@link AdmissionAnswer#NONE}. */
        AdmissionAnswer answer;
        /**
         * Its admission was refused because the job changed after this version (the one decided on), and no newer copy
         * had been seen: the first copy newer than it ends the backoff (decided again on it); else null.
         */
        String outdatedAt;
        /** Its eviction state ({@code Evictions}'), or null for {@link EvictionState#NONE}. */
        EvictionState eviction;
        /** A reclaim's victim, pending: not admitted before this job (its preemptor) is, while that reclaim goes on. */
        JobKey yieldsTo;
        /**
         * An evicted job seen suspended ({@code QUEUED}) while its pods are still there: it stays charged, state
         * {@code ADMITTED}, until they are gone ({@code Evictions.keepsRoom}); then this copy queues it. Else null.
         */
        JobObservation draining;
        /**
         * The newest {@code admittedAt} among the records its suspended copies carried: every record up to it is spent
         * (the job queued again after that admission), so a running copy under one was started by hand; else null.
         */
        Instant spentUpTo;
        /** The last hold reported for it (a hold is reported once per new reason); null if none yet. */
        Hold lastHold;
        /** The group whose admitted jobs it is counted in ({@link QuotaLedger}), or null. */
        String admittedCountedIn;
        /** The group whose held jobs it is counted in ({@link QueueManager}), or null. */
        String heldCountedIn;
        /** Why it is held ({@link JobState#HELD}), or null. */
        Hold hold;

        boolean isEmpty() {
            return answer == null && outdatedAt == null && eviction == null && yieldsTo == null
                    && draining == null && spentUpTo == null && lastHold == null
                    && admittedCountedIn == null && heldCountedIn == null && hold == null;
        }
    }

    private Extras extras() {
        if (extras == null) {
            extras = new Extras();
        }
        return extras;
    }

    /** Whether it holds an {@link Extras} (for tests: a job with every such field at its default holds none). */
    public boolean holdsExtras() {
        return extras != null;
    }

    /** Lets {@link #extras} go once all of it is back at its defaults. */
    private void trimExtras() {
        if (extras != null && extras.isEmpty()) {
            extras = null;
        }
    }

    /** What is known of its admission's answer ({@code AdmissionAnswers}'): {@link AdmissionAnswer#NONE} while pending. */
    public AdmissionAnswer answer() {
        return extras == null || extras.answer == null ? AdmissionAnswer.NONE : extras.answer;
    }

    public void answer(AdmissionAnswer next) {
        boolean none = next.isNone();
        if (extras == null && none) {
            return;
        }
        extras().answer = none ? null : next;
        if (none) {
            trimExtras();
        }
    }

    public String confirmedVersion() {
        return answer().confirmedVersion();
    }

    public boolean unconfirmed() {
        return answer().unconfirmed();
    }

    public JobObservation newest() {
        return answer().newest();
    }

    public boolean newestUnreadable() {
        return answer().newestUnreadable();
    }

    public String outdatedAt() {
        return extras == null ? null : extras.outdatedAt;
    }

    void outdatedAt(String outdatedAt) {
        if (extras == null && outdatedAt == null) {
            return;
        }
        extras().outdatedAt = outdatedAt;
        if (outdatedAt == null) {
            trimExtras();
        }
    }

    /** Its eviction state ({@code Evictions}'): {@link EvictionState#NONE} for most jobs. */
    public EvictionState eviction() {
        return extras == null || extras.eviction == null ? EvictionState.NONE : extras.eviction;
    }

    public void eviction(EvictionState state) {
        boolean none = state.isNone();
        if (extras == null && none) {
            return;
        }
        extras().eviction = none ? null : state;
        if (none) {
            trimExtras();
        }
    }

    public Eviction evicting() {
        return eviction().evicting();
    }

    public String evictionAppliedVersion() {
        return eviction().appliedVersion();
    }

    public boolean evictionUnconfirmed() {
        return eviction().unconfirmed();
    }

    public AdmissionRecord evictionRefusedUnder() {
        return eviction().refusedUnder();
    }

    /** Why it is held, or null. */
    public Hold hold() {
        return extras == null ? null : extras.hold;
    }

    void hold(Hold hold) {
        if (extras == null && hold == null) {
            return;
        }
        extras().hold = hold;
        if (hold == null) {
            trimExtras();
        }
    }

    /** The group whose held jobs it is counted in ({@link QueueManager}), or null. */
    String heldCountedIn() {
        return extras == null ? null : extras.heldCountedIn;
    }

    void heldCountedIn(String group) {
        if (extras == null && group == null) {
            return;
        }
        extras().heldCountedIn = group;
        if (group == null) {
            trimExtras();
        }
    }

    public JobKey yieldsTo() {
        return extras == null ? null : extras.yieldsTo;
    }

    public void yieldsTo(JobKey yieldsTo) {
        if (extras == null && yieldsTo == null) {
            return;
        }
        extras().yieldsTo = yieldsTo;
        if (yieldsTo == null) {
            trimExtras();
        }
    }

    public EvictionMarks marks() {
        return eviction().marks();
    }

    public AdmissionRecord podRanUnder() {
        return eviction().podRanUnder();
    }

    public AdmissionRecord podRanRecorded() {
        return eviction().podRanRecorded();
    }

    public JobObservation draining() {
        return extras == null ? null : extras.draining;
    }

    public void draining(JobObservation draining) {
        if (extras == null && draining == null) {
            return;
        }
        extras().draining = draining;
        if (draining == null) {
            trimExtras();
        }
    }

    public Instant timeoutAt() {
        return eviction().timeoutAt();
    }

    public Instant spentUpTo() {
        return extras == null ? null : extras.spentUpTo;
    }

    public void spentUpTo(Instant spentUpTo) {
        if (extras == null && spentUpTo == null) {
            return;
        }
        extras().spentUpTo = spentUpTo;
        if (spentUpTo == null) {
            trimExtras();
        }
    }

    public Hold lastHold() {
        return extras == null ? null : extras.lastHold;
    }

    void lastHold(Hold lastHold) {
        if (extras == null && lastHold == null) {
            return;
        }
        extras().lastHold = lastHold;
        if (lastHold == null) {
            trimExtras();
        }
    }

    @Override
    public String admittedCountedIn() {
        return extras == null ? null : extras.admittedCountedIn;
    }

    @Override
    public void admittedCountedIn(String admittedCountedIn) {
        if (extras == null && admittedCountedIn == null) {
            return;
        }
        extras().admittedCountedIn = admittedCountedIn;
        if (admittedCountedIn == null) {
            trimExtras();
        }
    }

    /** At most this many distinct requests are shared (see {@link #shared}); past it, each job keeps its own. */
    private static final int SHARED_REQUESTS_LIMIT = 4096;
    private static final Map<Resources, Resources> SHARED_REQUESTS = new ConcurrentHashMap<>();

    /**
     * One instance per distinct request: the fit memos and the backed-off sets are keyed by requests, and equal
     * instances compare at once, where equal copies walk both maps (a cluster asks for few distinct amounts).
     */
    private static Resources shared(Resources request) {
        Resources known = SHARED_REQUESTS.get(request);
        if (known != null) {
            return known;
        }
        if (SHARED_REQUESTS.size() >= SHARED_REQUESTS_LIMIT) {
            return request;
        }
        known = SHARED_REQUESTS.putIfAbsent(request, request);
        return known != null ? known : request;
    }
}
