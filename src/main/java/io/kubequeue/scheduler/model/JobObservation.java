package io.kubequeue.scheduler.model;

import java.time.Instant;
import java.util.Objects;

/**
 * One job as last seen in the cluster, reduced to what the scheduler needs.
 *
 * @param key            the job's identity
 * @param uid            the object's {@code metadata.uid}; a new uid under the same key is a new job (the old one
 *                       was deleted and re-created, and its delete may never be seen separately), or {@code null}
 * @param phase          where the job stands, read from its suspend mark, admission record and conditions
 * @param request        the whole job's resource request (millicores, bytes, counts)
 * @param priority       the class name and value the pod template gives; resolved against the PriorityClasses
 *                       in force (higher is admitted first; ties go to the earlier {@code createdAt})
 * @param createdAt      the job's {@code metadata.creationTimestamp}
 * @param quotaName      value of label {@code quota.scheduling.alibabacloud.com/name}, or {@code null}
 * @param preemptible    {@code false} when labelled {@code quota.scheduling.alibabacloud.com/preemptible: "false"}
 * @param record         the admission record found on the job, or {@code null}; a {@link Phase#QUEUED} job
 *                       that carries one was suspended again after its admission
 * @param resourceVersion the object's {@code metadata.resourceVersion}, or {@code null}; only compared with the
 *                       version our own admission patch produced (see {@link AdmissionOutcome.Applied})
 * @param stoppable      whether suspending the job again really stops it (its controller deletes its pods): only such
 *                       jobs are evicted, by a reclaim or an admission timeout (docs/policies.md, per kind)
 * @param evictions      what the job carries about kube-queue's evictions of it ({@link EvictionMarks#NONE} if none)
 * @param pods           what the job itself says of its pods ({@link Pods#NONE} if nothing)
 * @param admittedRequest the request its admission record says it was admitted (or charged as started outside) at,
 *                       what its pods were made from; null if the record says none (or there is no record). A running
 *                       job is charged at least this (docs/behaviour.md, "A running job's charge"), so a restart
 *                       reads back a charge its pods may still hold after its request was lowered
 * @param runTime        what the job says of how long it runs ({@link RunTimeHints#NONE} if nothing): read by the
 *                       start-time estimates only, never by a decision
 */
public record JobObservation(JobKey key, String uid, Phase phase, Resources request, JobPriority priority, Instant createdAt,
                             String quotaName, boolean preemptible, AdmissionRecord record, String resourceVersion,
                             boolean stoppable, EvictionMarks evictions, Pods pods, Resources admittedRequest,
                             RunTimeHints runTime) {

    /** An observation that says nothing of how long the job runs. */
    public JobObservation(JobKey key, String uid, Phase phase, Resources request, JobPriority priority, Instant createdAt,
                          String quotaName, boolean preemptible, AdmissionRecord record, String resourceVersion,
                          boolean stoppable, EvictionMarks evictions, Pods pods, Resources admittedRequest) {
        this(key, uid, phase, request, priority, createdAt, quotaName, preemptible, record, resourceVersion, stoppable,
                evictions, pods, admittedRequest, RunTimeHints.NONE);
    }

    /**
     * What a job itself says of its pods (issue 26, items 5 and 6).
     *
     * @param active         its kind's status counts pods still active or terminating (a batch Job's
     *                       {@code status.active} or {@code status.terminating} above 0): an evicted job keeps its
     *                       charge while they are ({@link io.kubequeue.scheduler.Scheduler#podsChanged})
     * @param ranUnderRecord it carries kube-queue's signed mark that a pod of it ran under its admission record
     *                       ({@link #record}): that admission never times out, after a restart too
     */
    public record Pods(boolean active, boolean ranUnderRecord) {
        /** Nothing said. */
        public static final Pods NONE = new Pods(false, false);
    }

    /** An observation that says nothing of its pods, whose record names no admitted request. */
    public JobObservation(JobKey key, String uid, Phase phase, Resources request, JobPriority priority, Instant createdAt,
                          String quotaName, boolean preemptible, AdmissionRecord record, String resourceVersion,
                          boolean stoppable, EvictionMarks evictions) {
        this(key, uid, phase, request, priority, createdAt, quotaName, preemptible, record, resourceVersion, stoppable,
                evictions, Pods.NONE, null);
    }

    /** An observation of a job that is never evicted, and carries no eviction marks. */
    public JobObservation(JobKey key, String uid, Phase phase, Resources request, JobPriority priority, Instant createdAt,
                          String quotaName, boolean preemptible, AdmissionRecord record, String resourceVersion) {
        this(key, uid, phase, request, priority, createdAt, quotaName, preemptible, record, resourceVersion, false,
                EvictionMarks.NONE);
    }

    /** An observation without a resourceVersion. */
    public JobObservation(JobKey key, String uid, Phase phase, Resources request, JobPriority priority, Instant createdAt,
                          String quotaName, boolean preemptible, AdmissionRecord record) {
        this(key, uid, phase, request, priority, createdAt, quotaName, preemptible, record, null);
    }

    /**
     * Whether this copy is newer than the copy at {@code version}. Kubernetes resourceVersions are opaque strings;
     * they are compared only when both are decimal numbers (as etcd writes them), and otherwise never count as
     * newer (a missing version neither). Bounded cost: a number longer than a {@code long} is not compared.
     */
    public boolean newerThan(String version) {
        if (resourceVersion == null || version == null) {
            return false;
        }
        try {
            return Long.parseLong(resourceVersion) > Long.parseLong(version);
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /** The same observation in another phase. */
    public JobObservation inPhase(Phase other) {
        return new JobObservation(key, uid, other, request, priority, createdAt, quotaName, preemptible, record,
                resourceVersion, stoppable, evictions, pods, admittedRequest, runTime);
    }

    /**
     * The same observation under {@code same}, a key equal to its own: the core keeps the first key instance it saw
     * of a job, so that a later read's copy of it is not held as well (issue 27).
     */
    public JobObservation withKey(JobKey same) {
        return same == key ? this : new JobObservation(same, uid, phase, request, priority, createdAt, quotaName,
                preemptible, record, resourceVersion, stoppable, evictions, pods, admittedRequest, runTime);
    }

    /** The same observation at another resourceVersion. */
    public JobObservation withResourceVersion(String version) {
        return new JobObservation(key, uid, phase, request, priority, createdAt, quotaName, preemptible, record, version,
                stoppable, evictions, pods, admittedRequest);
    }

    /** The same observation, of a job that suspending stops ({@code stoppable}) and with these eviction marks. */
    public JobObservation withEvictions(boolean stoppable, EvictionMarks marks) {
        return new JobObservation(key, uid, phase, request, priority, createdAt, quotaName, preemptible, record,
                resourceVersion, stoppable, marks, pods, admittedRequest, runTime);
    }

    /** The same observation, with what the job says of its pods. */
    public JobObservation withPods(Pods said) {
        return new JobObservation(key, uid, phase, request, priority, createdAt, quotaName, preemptible, record,
                resourceVersion, stoppable, evictions, said, admittedRequest, runTime);
    }

    /** The same observation, whose record says it was admitted at {@code admitted} (null: it says nothing). */
    public JobObservation withAdmittedRequest(Resources admitted) {
        return new JobObservation(key, uid, phase, request, priority, createdAt, quotaName, preemptible, record,
                resourceVersion, stoppable, evictions, pods, admitted, runTime);
    }

    /** The same observation, with what the job says of how long it runs. */
    public JobObservation withRunTime(RunTimeHints hints) {
        return new JobObservation(key, uid, phase, request, priority, createdAt, quotaName, preemptible, record,
                resourceVersion, stoppable, evictions, pods, admittedRequest, hints);
    }

    /** Where a job stands, as read from the cluster. */
    public enum Phase {
        /** Carries its suspend mark: waiting for admission. */
        QUEUED,
        /** Carries an admission record and no suspend mark: its resources are in use. */
        ADMITTED,
        /** Neither mark nor record: started without kube-queue (managed only if it was queued before). */
        UNSUSPENDED_WITHOUT_RECORD,
        /**
         * Carries a suspend mark its controller does not honour, and no record: it runs (e.g. a batch Job with
         * only the annotation, or whose {@code spec.suspend} was set false by hand). Charged as started outside
         * kube-queue, whether or not it was queued before, so its room is never given away.
         */
        STARTED_DESPITE_MARK,
        /** Finished (succeeded or failed) or deleted: never charged again. */
        FINISHED
    }

    public JobObservation {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(phase, "phase");
        request = request == null ? Resources.NONE : request;
        createdAt = createdAt == null ? Instant.EPOCH : sharedCreation(createdAt);
        priority = JobPriority.shared(priority); // one instance per distinct priority (issue 27)
        evictions = evictions == null || evictions.equals(EvictionMarks.NONE) ? EvictionMarks.NONE : evictions;
        pods = pods == null ? Pods.NONE : pods;
        runTime = runTime == null || runTime.equals(RunTimeHints.NONE) ? RunTimeHints.NONE : runTime;
    }

    /** Slots of {@link #sharedCreation}'s cache: a power of two. */
    private static final int CREATION_SLOTS = 1024;
    private static final Instant[] CREATIONS = new Instant[CREATION_SLOTS];

    /**
     * An instance equal to {@code createdAt}, shared with the jobs created in the same second (issue 27: a creation
     * timestamp has whole seconds, jobs are created by the hundred a second, and each read parsed its own 24-byte
     * Instant). A direct-mapped cache by second: a slot keeps the last instant seen for its seconds, so it costs 4 KiB
     * whatever the load. Instants are immutable, so sharing is safe; racing threads may each keep their own (a plain
     * array of references: a read sees null, an older instant or a newer one, each a whole object, and equality
     * decides).
     */
    static Instant sharedCreation(Instant createdAt) {
        int slot = (int) (createdAt.getEpochSecond() ^ createdAt.getEpochSecond() >>> 32) & (CREATION_SLOTS - 1);
        Instant known = CREATIONS[slot];
        if (known != null && known.equals(createdAt)) {
            return known;
        }
        CREATIONS[slot] = createdAt;
        return createdAt;
    }

    /** A finished or deleted job, whatever its uid; nothing but the key matters. */
    public static JobObservation finished(JobKey key) {
        return finished(key, null);
    }

    /** A finished or deleted job; with a uid, it ends only the job of that uid, not a re-created namesake. */
    public static JobObservation finished(JobKey key, String uid) {
        return new JobObservation(key, uid, Phase.FINISHED, Resources.NONE, JobPriority.NONE, Instant.EPOCH, null, true,
                null);
    }
}
