package io.kubequeue.scheduler;

import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.EvictionOutcome;
import io.kubequeue.scheduler.model.JobKey;

/**
 * The core as the eviction writer sees it: what became of an eviction it sent, and the pods it found running on the
 * last check before a timeout ({@link Scheduler} implements it). One of the core's roles.
 */
public interface EvictionSettling {

    /** See {@link Scheduler#settleEviction}. */
    void settleEviction(JobKey key, AdmissionRecord record, EvictionOutcome outcome);

    /** See {@link Scheduler#evictionUnsettled}. */
    boolean evictionUnsettled(JobKey key, AdmissionRecord record);

    /** See {@link Scheduler#podRan}. */
    void podRan(JobKey key);
}
