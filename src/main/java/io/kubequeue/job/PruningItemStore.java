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
 * (docs/architecture.md, "Informer caches"); keyed {@code namespace/name} like fabric8's default store, but held
 * by namespace and then by name, so that it keeps no key string of its own: each job's copy is found under its name's
 * own instance (issue 27: a 72-byte key per job, with fabric8's namespace index gone, {@link NamespaceIndexes}).
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

    /** Namespace ("" for a cluster-scoped object) → name → the copy; a namespace with no object left is removed. */
    private final Map<String, Map<String, T>> items = new ConcurrentHashMap<>();
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
     * {@code namespace/name}, as fabric8's default store. The store does not keep it; fabric8's namespace index does,
     * until it is dropped ({@link NamespaceIndexes}), so it is interned: the index then holds one instance per object
     * however often the object is updated.
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
        T kept = copy;
        String name = kept.getMetadata() == null || kept.getMetadata().getName() == null ? nameOf(key)
                : kept.getMetadata().getName(); // the copy's own instance: no second string per object
        Object[] before = new Object[1];
        items.compute(namespaceOf(key), (ns, byName) -> {
            Map<String, T> names = byName == null ? new ConcurrentHashMap<>() : byName;
            before[0] = names.put(name, kept);
            return names;
        });
        @SuppressWarnings("unchecked")
        T previous = (T) before[0];
        return previous;
    }

    /** The namespace part of a {@code namespace/name} key; "" for a key with no namespace (a cluster-scoped name). */
    private static String namespaceOf(String key) {
        int slash = key.indexOf('/');
        return slash < 0 ? "" : key.substring(0, slash);
    }

    private static String nameOf(String key) {
        return key.substring(key.indexOf('/') + 1);
    }

    private static String keyOf(String namespace, String name) {
        return namespace.isEmpty() ? name : namespace + "/" + name;
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
        Object[] removed = new Object[1];
        items.computeIfPresent(namespaceOf(key), (ns, byName) -> {
            removed[0] = byName.remove(nameOf(key));
            return byName.isEmpty() ? null : byName;
        });
        @SuppressWarnings("unchecked")
        T previous = (T) removed[0];
        return previous;
    }

    /** The keys, made when asked for (a re-list asks once, to find what its list no longer shows). */
    @Override
    public Stream<String> keySet() {
        return items.entrySet().stream()
                .flatMap(ns -> ns.getValue().keySet().stream().map(name -> keyOf(ns.getKey(), name)));
    }

    @Override
    public Stream<T> values() {
        return items.values().stream().flatMap(byName -> byName.values().stream());
    }

    @Override
    public int size() {
        return items.values().stream().mapToInt(Map::size).sum();
    }

    @Override
    public T get(String key) {
        Map<String, T> byName = items.get(namespaceOf(key));
        return byName == null ? null : byName.get(nameOf(key));
    }
}
