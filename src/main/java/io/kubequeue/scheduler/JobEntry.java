package io.kubequeue.scheduler;

import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One job as the core holds it, pending or admitted: the mutable record every part of the core shares. Only the core
 * touches it, always under {@link Scheduler}'s lock.
 *
 * <p>The fields that place a job in a sorted set ({@link #priority}, its request and preemptibility) change only while
 * it is in no sorted set (see {@link QueueOrder}).
 */
final class JobEntry {
    JobObservation job;
    /** The resolved priority, cached for queue order; changed only while out of every sorted set. */
    int priority;
    /** When the job was last queued (first seen, or suspended again). */
    Instant queuedAt;
    Scheduler.State state;
    /** The group it queues in (pending); null if none. */
    String group;
    /** Its tries; while it is in a {@link #wave}, the wave's (read {@link #attempts()}). */
    int attempts;
    /** When a backed-off job is tried again; while it is in a {@link #wave}, the wave's (read {@link #retryAt()}). */
    Instant retryAt;
    /** The backed-off jobs it waits with, or null (see {@link BackoffWave}). */
    BackoffWave wave;
    /** The group whose held jobs it is counted in ({@link QueueManager}), or null. */
    String heldCountedIn;
    /** The group whose admitted jobs it is counted in ({@link QuotaLedger}), or null. */
    String admittedCountedIn;
    Hold hold;
    Hold lastHold;
    AdmissionRecord record;
    String chargedGroup;
    Resources charged = Resources.NONE;
    boolean chargedGuaranteed;
    /** The job was seen running (unsuspended) since its charge: a suspend mark seen now is a re-suspension. */
    boolean seenRunning;
    /** The resourceVersion our admission patch produced, or null. */
    String confirmedVersion;
    /** The admission's answer was lost (5xx, timeout) and reading the job back failed: outcome unknown. */
    boolean unconfirmed;
    /** The newest suspended copy seen while the admission was on its way; applied if it is handed back. */
    JobObservation newest;
    /** That copy's request cannot be read: if the admission is handed back, the job is withdrawn. */
    boolean newestUnreadable;
    /** Runs with a request that cannot be read: charged one job, and holds its groups (see QuotaLedger). */
    boolean chargeUnknown;
    /** In backoff after a refused admission: only the backoff's expiry retries it. */
    boolean refused;
    /**
     * Its admission was refused because the job changed after this version (the one decided on), and no newer copy
     * had been seen: the first copy newer than it ends the backoff (decided again on it); else null.
     */
    String outdatedAt;
    /** An eviction decided and not seen through yet: the job stays charged until it is seen suspended. */
    Eviction evicting;
    /** The resourceVersion the applied eviction produced: a running copy newer than it was started again. */
    String evictionAppliedVersion;
    /** That eviction's answer was lost and reading the job back failed: outcome unknown. */
    boolean evictionUnconfirmed;
    /** The admission under which an eviction of the job was refused: it is not a victim again under it. */
    AdmissionRecord evictionRefusedUnder;
    /** A reclaim's victim, pending: not admitted before this job (its preemptor) is, while that reclaim goes on. */
    JobKey yieldsTo;
    /** What the job carries about its evictions, and the ones applied since. */
    EvictionMarks marks = EvictionMarks.NONE;
    /** The admission under which a pod of the job was seen running: that admission can no longer time out. */
    AdmissionRecord podRanUnder;
    /** The admission whose pod-ran mark was asked to be written ({@link Scheduler#podRan}): asked once. */
    AdmissionRecord podRanRecorded;
    /**
     * An evicted job seen suspended ({@code QUEUED}) while its pods are still there: it stays charged, state
     * {@code ADMITTED}, until they are gone ({@link Evictions#keepsRoom}); then this copy queues it. Else null.
     */
    JobObservation draining;
    /** When its admission times out, while it is watched for that ({@link Evictions}); else null. */
    Instant timeoutAt;
    /**
     * The newest {@code admittedAt} among the records its suspended copies carried: every record up to it is spent
     * (the job queued again after that admission), so a running copy under one was started by hand; else null.
     */
    Instant spentUpTo;

    /** The request plus one job of the {@link Resources#MAX_JOBS} pseudo-resource; kept, as fit checks are hot. */
    private Resources effectiveRequest;

    JobEntry(JobObservation job, Instant queuedAt, int priority) {
        this.job = job;
        this.queuedAt = queuedAt;
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

    /** How many times it was tried and did not fit, or had its admission refused. */
    int attempts() {
        return wave != null ? wave.attempts : attempts;
    }

    /** When a backed-off job is tried again; null otherwise. */
    Instant retryAt() {
        return wave != null ? wave.retryAt : retryAt;
    }

    Resources effectiveRequest() {
        return effectiveRequest;
    }

    /** The group the job is counted in: where it is charged if admitted, else where it queues. */
    String currentGroup() {
        return state == Scheduler.State.ADMITTED ? chargedGroup : group;
    }

    /** A read-only copy of where it stands. */
    Scheduler.JobStatus status() {
        return new Scheduler.JobStatus(job.key(), state, currentGroup(), job.request(), priority, attempts(), retryAt(),
                hold, record);
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
