package io.kubequeue.scheduler;

import java.util.Optional;

import io.kubequeue.scheduler.model.Admission;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.JobStatus;
import io.kubequeue.scheduler.model.Observed;
import io.kubequeue.scheduler.model.Unreadable;

/**
 * The core as the job feed sees it: every observation of a job goes in here ({@link Scheduler} implements it, under
 * its lock). One of the core's roles: a client depends on the roles it uses, never on {@code Scheduler} itself.
 */
public interface JobIntake {

    /** See {@link Scheduler#observe}. */
    Observed observe(JobObservation observation);

    /** See {@link Scheduler#deleted}. */
    Observed deleted(JobKey key, String uid);

    /** See {@link Scheduler#observeUnreadable}. */
    Unreadable observeUnreadable(JobObservation observation);

    /** See {@link Scheduler#unconfirmedAdmission}. */
    Optional<Admission> unconfirmedAdmission(JobKey key);

    /** See {@link Scheduler#manages}. */
    boolean manages(JobKey key);

    /** See {@link Scheduler#status}. */
    Optional<JobStatus> status(JobKey key);

    /** The quota groups in force: see {@link Scheduler#tree}. */
    io.kubequeue.scheduler.model.QuotaTree tree();

    /**
     * Learns one finished run for the start-time estimates' history of run times (issue 30): the job feed hands over
     * every finished job that carries an admission record and a completion time, so after a restart the history is
     * rebuilt from the jobs still in the cluster. The same run twice counts once. Never changes a decision.
     */
    void learn(io.kubequeue.scheduler.model.FinishedRun run);
}
