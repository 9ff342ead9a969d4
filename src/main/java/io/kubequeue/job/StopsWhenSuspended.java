package io.kubequeue.job;

import java.util.Optional;

import io.fabric8.kubernetes.api.model.HasMetadata;

/**
 * An optional capability of a {@link JobKind}: its controller stops a running job when a suspend mark is set on it
 * again (deletes its pods), so kube-queue may evict it, for a reclaim or an admission timeout (docs/policies.md).
 * Kinds without it are never evicted.
 *
 * @param <R> the job's fabric8 type
 */
public interface StopsWhenSuspended<R extends HasMetadata> {

    /**
     * The mark that stops this job if set to true now, or empty if none would (e.g. its controller does not support
     * suspending a running job). Read from the cached (pruned) copy: it must keep what this reads.
     */
    Optional<SuspendMark> stopMark(R job);
}
