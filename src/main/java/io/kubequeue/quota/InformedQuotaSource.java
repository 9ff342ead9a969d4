package io.kubequeue.quota;

import java.util.List;
import java.util.function.Consumer;

import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.kubequeue.scheduler.QuotaTree;

/**
 * What both quota plugins share: one informer on the quota objects, and on any add, update or delete the whole
 * set of groups is rebuilt from the informer's store and reported if it changed.
 *
 * @param <T> the quota object's kind
 */
abstract class InformedQuotaSource<T> implements QuotaGroupSource {

    private SharedIndexInformer<T> informer;
    private Consumer<QuotaTree> onChange;
    private QuotaTree current;

    /** Starts the informer (blocking for its first list), calling {@code handler} on every change. */
    protected abstract SharedIndexInformer<T> inform(ResourceEventHandler<T> handler);

    /**
     * The groups the quota objects describe now.
     *
     * @param objects every quota object in the informer's store
     * @param current the groups in force, or null before the first ones (an invalid object may keep them)
     */
    protected abstract QuotaTree build(List<T> objects, QuotaTree current);

    @Override
    public void start(Consumer<QuotaTree> onChange) {
        this.onChange = onChange;
        informer = inform(new ResourceEventHandler<>() {
            @Override
            public void onAdd(T object) {
                refresh();
            }

            @Override
            public void onUpdate(T oldObject, T newObject) {
                refresh();
            }

            @Override
            public void onDelete(T object, boolean deletedFinalStateUnknown) {
                refresh();
            }
        });
        refresh();
    }

    @Override
    public void stop() {
        if (informer != null) {
            informer.stop();
        }
    }

    private synchronized void refresh() {
        if (informer == null) {
            return; // events during the initial list; start() refreshes once the list is complete
        }
        QuotaTree next = build(informer.getStore().list(), current);
        if (!next.equals(current)) {
            current = next;
            onChange.accept(next);
        }
    }
}
