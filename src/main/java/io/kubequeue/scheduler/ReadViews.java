package io.kubequeue.scheduler;

import java.util.List;
import java.util.Optional;
import java.util.Set;

import io.kubequeue.scheduler.model.DryRun;
import io.kubequeue.scheduler.model.GroupView;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.JobStatus;
import io.kubequeue.scheduler.model.PendingView;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.SchedulerSettings;

/**
 * The core as its readers see it — the read API, the dry run, the metrics, the tree's status, the records written
 * beside admissions: copies of where things stand, nothing that changes them ({@link Scheduler} implements it). One
 * of the core's roles.
 */
public interface ReadViews {

    /** See {@link Scheduler#settings}. */
    SchedulerSettings settings();

    /** See {@link Scheduler#status}. */
    Optional<JobStatus> status(JobKey key);

    /** See {@link Scheduler#jobs}. */
    List<JobStatus> jobs();

    /** See {@link Scheduler#tree}. */
    QuotaTree tree();

    /** See {@link Scheduler#groups}. */
    List<GroupView> groups();

    /** See {@link Scheduler#groupsWhoseHeadFits}. */
    Set<String> groupsWhoseHeadFits();

    /** See {@link Scheduler#pending}. */
    List<PendingView> pending(String group);

    /** See {@link Scheduler#pendingIn}. */
    List<PendingView> pendingIn(String namespace);

    /** See {@link Scheduler#find}. */
    List<PendingView> find(String namespace, String name);

    /** See {@link Scheduler#dryRun}. */
    DryRun dryRun(JobObservation job);
}
