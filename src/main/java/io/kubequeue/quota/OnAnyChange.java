package io.kubequeue.quota;

import io.fabric8.kubernetes.client.informers.ResourceEventHandler;

/**
 * An informer handler that runs one action on every add, update and delete: the quota sources rebuild their
 * groups from the informer's whole store, whatever changed.
 *
 * @param <T> the watched kind
 */
final class OnAnyChange<T> implements ResourceEventHandler<T> {

    private final Runnable action;

    OnAnyChange(Runnable action) {
        this.action = action;
    }

    @Override
    public void onAdd(T object) {
        action.run();
    }

    @Override
    public void onUpdate(T oldObject, T newObject) {
        action.run();
    }

    @Override
    public void onDelete(T object, boolean deletedFinalStateUnknown) {
        action.run();
    }
}
