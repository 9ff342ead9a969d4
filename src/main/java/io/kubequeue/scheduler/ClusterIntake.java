package io.kubequeue.scheduler;

import java.util.function.Consumer;

import io.kubequeue.scheduler.model.PriorityClasses;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.Resources;

/**
 * The core as the quota plugins and the PriorityClass watch see it: what the cluster says beyond the jobs — the quota
 * groups in force, what is used outside kube-queue, the PriorityClasses ({@link Scheduler} implements it). One of
 * the core's roles.
 */
public interface ClusterIntake {

    /** See {@link Scheduler#replaceTree}. */
    void replaceTree(QuotaTree newTree);

    /** See {@link Scheduler#externalRecountTicket}. */
    long externalRecountTicket(String group);

    /** See {@link Scheduler#setExternalUsage(String, Resources, long)}. */
    void setExternalUsage(String group, Resources used, long ticket);

    /** See {@link Scheduler#trackExternalUsage}. */
    void trackExternalUsage(Consumer<String> recount);

    /** See {@link Scheduler#replacePriorityClasses}. */
    void replacePriorityClasses(PriorityClasses classes);

    /** See {@link Scheduler#priorityClasses}. */
    PriorityClasses priorityClasses();
}
