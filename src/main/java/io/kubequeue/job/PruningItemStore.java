package io.kubequeue.job;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import org.jboss.logging.Logger;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;

/**
 * The store of one informer that keeps a pruned copy of each object instead of the object itself
 * (docs/architecture.md, "Informer caches"); keyed {@code namespace/name} like fabric8's default store.
 *
 * <p>The informer still hands each new object whole to its event handlers; only what stays in memory afterwards, and
 * what is read from the cache (the old object of an update, the object JOSDK passes to a reconciler), is the copy.
 * Initial-list add events are deferred until the list is complete ({@link #isFullState()} true, as fabric8's own
 * store) and then carry the copies.
 *
 * <p>One store serves one informer: fabric8 removes from its store whatever its own list does not show, so two
 * informers sharing one store (JOSDK gives the same store to each namespace's informer when a controller watches
 * several namespaces) would delete each other's objects.
 *
 * @param <T> the cached type
 */
public final class PruningItemStore<T extends HasMetadata> implements ItemStore<T> {

    private static final Logger LOG = Logger.getLogger(PruningItemStore.class);

    private final Map<String, T> items = new ConcurrentHashMap<>();
    private final UnaryOperator<T> prune;
    private volatile boolean pruneFailureLogged;

    /**
     * @param prune builds the copy kept of an object; it must keep the name, namespace and resourceVersion, and
     *              must not change the object it is given (the informer's handlers still read it; the store only
     *              swaps its name and namespace for equal, interned instances)
     */
    public PruningItemStore(UnaryOperator<T> prune) {
        this.prune = prune;
    }

    /**
     * {@code namespace/name}, as fabric8's default store, interned: fabric8 keeps the key of each object twice, here
     * and in its namespace index, and takes it anew at each update; the index then holds the new instance and this
     * store the first one (issue 27: two 72-byte strings per job). Interned, both hold one.
     */
    @Override
    public String getKey(T obj) {
        return Cache.metaNamespaceKeyFunc(obj).intern();
    }

    /**
     * Keeps the pruned copy of {@code obj}; an object the pruning fails on is kept whole (more memory, same answers),
     * and the first such failure is logged.
     *
     * @return the copy kept before, or null
     */
    @Override
    public T put(String key, T obj) {
        shareIdentity(obj);
        T copy;
        try {
            copy = prune.apply(obj);
        } catch (RuntimeException e) {
            if (!pruneFailureLogged) {
                pruneFailureLogged = true;
                LOG.warnf(e, "could not prune %s %s for the informer cache; it is kept whole", obj.getKind(), key);
            }
            copy = obj;
        }
        return items.put(key, copy);
    }

    /**
     * Puts the interned instances of the object's name and namespace in place of its own (equal strings: nothing
     * reads differently). The store sees the object before its handlers do, and JOSDK's handler keeps, for each
     * resource it is told of, an id with the name and namespace of the object as delivered: without this, each job's
     * id holds a namespace string of its own (issue 27: 56 bytes per job). Only the first delivery's id is kept.
     */
    private static void shareIdentity(HasMetadata obj) {
        var meta = obj.getMetadata();
        if (meta == null) {
            return;
        }
        if (meta.getNamespace() != null) {
            meta.setNamespace(meta.getNamespace().intern());
        }
        if (meta.getName() != null) {
            meta.setName(meta.getName().intern());
        }
    }

    @Override
    public T remove(String key) {
        return items.remove(key);
    }

    @Override
    public Stream<String> keySet() {
        return items.keySet().stream();
    }

    @Override
    public Stream<T> values() {
        return items.values().stream();
    }

    @Override
    public int size() {
        return items.size();
    }

    @Override
    public T get(String key) {
        return items.get(key);
    }
}
