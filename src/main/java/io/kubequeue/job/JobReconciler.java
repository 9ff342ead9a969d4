package io.kubequeue.job;

import java.util.List;
import java.util.Set;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.config.ControllerConfigurationOverrider;
import io.quarkiverse.operatorsdk.runtime.api.ConfigurableReconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;

/**
 * What every job reconciler does: hand each event of its kind to the {@link JobFeed}, and register
 * {@link JobDeletions} so deletes release quota and {@link JobRepricing} so a LimitRange or RuntimeClass change
 * prices the queued jobs again. A kind's reconciler is a subclass with a
 * {@code @ControllerConfiguration} and a constructor; it never updates the job (admission does).
 *
 * @param <R> the job kind's fabric8 class
 */
public abstract class JobReconciler<R extends HasMetadata> implements ConfigurableReconciler<R> {

    /** A label selector no job carries: the informer of a disabled kind lists and watches nothing. */
    static final String NOTHING = "kube-queue.io/kind-disabled=true";

    /**
     * The most jobs one list request returns (the informers' and start-up recovery's): a list of every job at once
     * would hold them all whole in memory, and 15,000 jobs do not fit a small heap. 500 is kubectl's and client-go's
     * page size.
     */
    public static final long LIST_PAGE = 500;

    private final JobFeed feed;
    private final JobKind<R> kind;
    /** Whether fabric8's namespace index of this kind's informers is gone ({@link NamespaceIndexes}). */
    private volatile boolean namespaceIndexDropped;

    /** For the CDI client proxy only. */
    protected JobReconciler() {
        this(null, null);
    }

    protected JobReconciler(JobFeed feed, JobKind<R> kind) {
        this.feed = feed;
        this.kind = kind;
    }

    /**
     * A kind switched off by {@code kube-queue.disabled-kinds} watches nothing; with
     * {@code kube-queue.watch-namespaces}, the informers watch those namespaces only (QOSDK calls this at start).
     * The informer lists in pages of {@value #LIST_PAGE} and caches the kind's {@link JobKind#pruned} copies
     * ({@link #prunesCache}).
     */
    @Override
    public void updateConfigurationFrom(ControllerConfigurationOverrider<R> overrider) {
        if (!feed.enabled(kind.kind())) {
            overrider.withLabelSelector(NOTHING);
        }
        if (!feed.watchedNamespaces().isEmpty()) {
            overrider.settingNamespaces(feed.watchedNamespaces());
        }
        overrider.withInformerListLimit(LIST_PAGE);
        if (prunesCache(feed.watchedNamespaces())) {
            overrider.withItemStore(new PruningItemStore<>(kind::pruned));
        }
    }

    /**
     * Whether the informer cache keeps pruned copies: yes when it watches every namespace or one. JOSDK runs one
     * informer per namespace and gives them all the same item store, and an informer removes from its store whatever
     * its own list does not show: with several watched namespaces, each informer's re-list would delete the others'
     * jobs (and release their quota). Those keep fabric8's default store, whole objects, one per informer.
     *
     * @param watchedNamespaces {@code kube-queue.watch-namespaces}; empty: every namespace
     */
    static boolean prunesCache(Set<String> watchedNamespaces) {
        return watchedNamespaces.size() <= 1;
    }

    /**
     * Hands the job to the feed. {@code job} is the informer's cached copy itself, not JOSDK's copy of it
     * ({@code NoCopyOperatorProducer}): never change it, and return {@code noUpdate} only. A status patch, a
     * resource patch or a finalizer (a {@code Cleaner}) would have JOSDK write into the shared, pruned cache object.
     * A job that cannot be read is reported at the job ({@link JobFeed#observeOrReport}), never thrown to JOSDK,
     * which would retry it with backoff forever.
     */
    @Override
    public UpdateControl<R> reconcile(R job, Context<R> context) {
        if (!namespaceIndexDropped) {
            dropNamespaceIndex(context);
        }
        feed.observeOrReport(kind, job); // a job that cannot be read is reported at the job: no retry loop
        return UpdateControl.noUpdate();
    }

    /**
     * At the first reconcile, when JOSDK's informers exist: nothing of kube-queue or JOSDK reads their namespace
     * index, which holds a key per job ({@link NamespaceIndexes}).
     */
    private void dropNamespaceIndex(Context<R> context) {
        namespaceIndexDropped = true;
        if (context != null && context.eventSourceRetriever() != null
                && context.eventSourceRetriever().getControllerEventSource() != null) {
            NamespaceIndexes.drop(context.eventSourceRetriever().getControllerEventSource());
        }
    }

    @Override
    public List<EventSource<?, R>> prepareEventSources(EventSourceContext<R> context) {
        return List.of(new JobDeletions<>(feed, kind),
                new JobRepricing<>(feed, kind.kind(), context.getPrimaryCache()));
    }
}
