package io.kubequeue.scheduler;

/**
 * A decision to admit one job, already charged to its group's usage. The admission side must either write
 * it to the cluster or hand it back with {@link Scheduler#settle} ({@link AdmissionOutcome#REFUSED}).
 *
 * @param key     the job to admit
 * @param uid     the {@code metadata.uid} of the object the decision was made for; the patch applies to that object
 *                only, never to a namesake created since (null: not known, e.g. a hand-made test object)
 * @param record  what to write on the job: the group charged and the admission time
 * @param request the resources charged (millicores, bytes, counts)
 * @param waited  time since the job was first queued, in milliseconds
 */
public record Admission(JobKey key, String uid, AdmissionRecord record, Resources request, long waited) {
}
