package io.kubequeue.job;

import java.util.Set;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.processing.event.source.AbstractEventSource;
import io.javaoperatorsdk.operator.processing.event.source.ResourceEventAware;

/**
 * Hands job deletes to {@link JobFeed#deleted}, so a deleted job releases its quota at once. Each reconciler
 * returns one from {@code prepareEventSources}.
 *
 * <p>Why an event source: kube-queue must not put finalizers on users' jobs (an outage would block their
 * deletion), and without a finalizer JOSDK calls no reconciler on a delete. Its "trigger on all events" mode
 * would, but QOSDK 7.7.3 does not pass that flag on to JOSDK 5.3. JOSDK does tell every
 * {@link ResourceEventAware} event source of the controller about each primary-resource delete, with the
 * job's last state; this source only listens and never triggers a reconcile itself.
 *
 * @param <P> the job kind's class
 */
public class JobDeletions<P extends HasMetadata> extends AbstractEventSource<JobDeletions<?>, P>
        implements ResourceEventAware<P> {

    private final JobFeed feed;
    private final JobKind<P> kind;

    /**
     * @param feed the feed to tell
     * @param kind the job kind's adapter
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public JobDeletions(JobFeed feed, JobKind<P> kind) {
        super((Class) JobDeletions.class, kind.kind().toLowerCase(java.util.Locale.ROOT) + "-deletions");
        this.feed = feed;
        this.kind = kind;
    }

    @Override
    public void onResourceDeleted(P job) {
        feed.deleted(kind, job);
    }

    @Override
    public Set<JobDeletions<?>> getSecondaryResources(P primary) {
        return Set.of();
    }
}
