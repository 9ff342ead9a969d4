package io.kubequeue.job;

import io.fabric8.kubernetes.api.model.HasMetadata;

/**
 * An optional capability of a {@link JobKind}: its controller counts the job's pods that are still active or
 * terminating in its status (a batch Job's {@code status.active} and {@code status.terminating}). An evicted job keeps
 * its charge while it counts any (docs/policies.md, "When a victim's room is free"); for the kinds without it the pod
 * watch ({@link JobPods#podsLeft}) alone tells.
 *
 * @param <R> the job's fabric8 type
 */
public interface CountsActivePods<R extends HasMetadata> {

    /** Whether the job's status counts a pod active or terminating now. Read from the cached (pruned) copy. */
    boolean podsActive(R job);
}
