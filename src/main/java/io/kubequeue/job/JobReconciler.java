package io.kubequeue.job;

import java.util.List;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.config.ControllerConfigurationOverrider;
import io.quarkiverse.operatorsdk.runtime.api.ConfigurableReconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;

/**
 * What every job reconciler does: hand each event of its kind to the {@link JobFeed}, and register
 * {@link JobDeletions} so deletes release quota. A kind's reconciler is a subclass with a
 * {@code @ControllerConfiguration} and a constructor; it never updates the job (admission does).
 *
 * @param <R> the job kind's fabric8 class
 */
public abstract class JobReconciler<R extends HasMetadata> implements ConfigurableReconciler<R> {

    /** A label selector no job carries: the informer of a disabled kind lists and watches nothing. */
    static final String NOTHING = "kube-queue.io/kind-disabled=true";

    private final JobFeed feed;
    private final JobKind<R> kind;

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
     */
    @Override
    public void updateConfigurationFrom(ControllerConfigurationOverrider<R> overrider) {
        if (!feed.enabled(kind.kind())) {
            overrider.withLabelSelector(NOTHING);
        }
        if (!feed.watchedNamespaces().isEmpty()) {
            overrider.settingNamespaces(feed.watchedNamespaces());
        }
    }

    @Override
    public UpdateControl<R> reconcile(R job, Context<R> context) {
        feed.observe(kind, job);
        return UpdateControl.noUpdate();
    }

    @Override
    public List<EventSource<?, R>> prepareEventSources(EventSourceContext<R> context) {
        return List.of(new JobDeletions<>(feed, kind.kind()));
    }
}
