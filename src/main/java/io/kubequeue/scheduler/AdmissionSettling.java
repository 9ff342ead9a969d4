package io.kubequeue.scheduler;

import java.util.Optional;

import io.kubequeue.scheduler.model.AdmissionOutcome;
import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.JobKey;

/**
 * The core as the admission writer sees it: what became of an admission it sent ({@link Scheduler} implements it).
 * One of the core's roles.
 */
public interface AdmissionSettling {

    /** See {@link Scheduler#settle}. */
    Optional<AdmissionRecord> settle(JobKey key, AdmissionRecord record, AdmissionOutcome outcome);

    /** See {@link Scheduler#rebind}. */
    boolean rebind(JobKey key, AdmissionRecord record, String version);

    /** See {@link Scheduler#admissionUnsettled}. */
    boolean admissionUnsettled(JobKey key, AdmissionRecord record);
}
