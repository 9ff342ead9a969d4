package io.kubequeue.scheduler.model;

/**
 * A decision to admit one job, already charged to its group's usage. The admission side must either write
 * it to the cluster or hand it back with {@link io.kubequeue.scheduler.Scheduler#settle} ({@link AdmissionOutcome#REFUSED}).
 *
 * @param key     the job to admit
 * @param uid     the {@code metadata.uid} of the object the decision was made for; the patch applies to that object
 *                only, never to a namesake created since (null: not known, e.g. a hand-made test object)
 * @param record  what to write on the job: the group charged and the admission time
 * @param request the resources charged (millicores, bytes, counts)
 * @param waited  time since the job was first queued, in milliseconds
 * @param resourceVersion the {@code metadata.resourceVersion} of the copy of the job the decision was made on: the
 *                admission patch applies to that version only, so a job changed since (an edit of its request, its
 *                labels or annotations, a status write) refuses it and is decided again (docs/behaviour.md, "The
 *                admission is bound to the job as decided"); null: not known (a hand-made object)
 */
public record Admission(JobKey key, String uid, AdmissionRecord record, Resources request, long waited,
                        String resourceVersion) {

    /** An admission not bound to a version (a charge recorded on a running job, a hand-made test object). */
    public Admission(JobKey key, String uid, AdmissionRecord record, Resources request, long waited) {
        this(key, uid, record, request, waited, null);
    }

    /** The same admission, bound to another version of the job (one the core found charged alike). */
    public Admission boundTo(String version) {
        return new Admission(key, uid, record, request, waited, version);
    }
}
