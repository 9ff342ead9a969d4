package io.kubequeue.bench;

import java.util.AbstractMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.KubernetesAttributesExtractor;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.mockwebserver.crud.Attribute;
import io.fabric8.mockwebserver.crud.AttributeSet;
import io.fabric8.mockwebserver.http.MockResponse;

/**
 * fabric8's CRUD store with a hash index on object names, so that a request for one object by name costs O(1)
 * instead of a scan of every stored object.
 *
 * <p>fabric8's {@link KubernetesCrudDispatcher} finds an object by testing each stored key against the request
 * ({@code findResource}, and a named GET copies the whole store first): every create (it checks that the name is
 * free), GET, PUT and PATCH of one object costs time proportional to the number of objects stored. With 15,000
 * Jobs and their Events that cost, not kube-queue's, sets the pace (docs/performance.md, "The embedded API
 * server"). Everything else is fabric8's: the same keys (recomputed here exactly as fabric8 stores them), the same
 * matching, the same answers, watch events and resourceVersions; lists and watches still scan, as they must.
 *
 * <p>The index is by name alone (a few objects share a name across namespaces); each candidate is still matched
 * against the request with fabric8's own {@link AttributeSet#matches}.
 */
final class IndexedCrudDispatcher extends KubernetesCrudDispatcher {

    private final Map<String, Set<AttributeSet>> byName = new ConcurrentHashMap<>();
    /** Guards the store (a LinkedHashMap) between fabric8's writes and the named reads served here. */
    private final ReadWriteLock lock = new ReentrantReadWriteLock();
    private final KubernetesAttributesExtractor extractor;

    IndexedCrudDispatcher(List<CustomResourceDefinitionContext> statusSubresources) {
        super(statusSubresources);
        this.extractor = (KubernetesAttributesExtractor) getAttributeExtractor();
    }

    @Override
    public Map.Entry<AttributeSet, String> findResource(AttributeSet query) {
        String name = name(query);
        if (name == null) {
            return super.findResource(query);
        }
        lock.readLock().lock();
        try {
            for (AttributeSet candidate : byName.getOrDefault(name, Set.of())) {
                if (candidate.matches(query)) {
                    String value = map.get(candidate);
                    if (value != null) {
                        return new AbstractMap.SimpleImmutableEntry<>(candidate, value);
                    }
                }
            }
            return null;
        } finally {
            lock.readLock().unlock();
        }
    }

    /** A GET of one object by name is served from the index; lists, watches and discovery go to fabric8. */
    @Override
    public MockResponse handleGet(String path) {
        if (path.contains("watch=true")) {
            return super.handleGet(path);
        }
        AttributeSet query = getKey(path);
        if (name(query) == null) {
            return super.handleGet(path);
        }
        Map.Entry<AttributeSet, String> found = findResource(query);
        return found == null ? new MockResponse().setResponseCode(404)
                : new MockResponse().setResponseCode(200).setBody(found.getValue());
    }

    @Override
    public void processEvent(String path, AttributeSet pathAttributes, AttributeSet oldAttributes,
                             GenericKubernetesResource resource, String newState) {
        lock.writeLock().lock();
        try {
            super.processEvent(path, pathAttributes, oldAttributes, resource, newState);
            if (oldAttributes != null) {
                unindex(oldAttributes);
            }
            if (newState != null) {
                // the key fabric8 has just stored, computed as fabric8 computes it
                AttributeSet stored = resource != null ? extractor.extract(resource) : extractor.fromResource(newState);
                if (!stored.containsKey(KubernetesAttributesExtractor.PLURAL)) {
                    stored = AttributeSet.merge(pathAttributes, stored);
                }
                index(stored);
            }
        } finally {
            lock.writeLock().unlock();
        }
    }

    @Override
    public void reset() {
        lock.writeLock().lock();
        try {
            super.reset();
            byName.clear();
        } finally {
            lock.writeLock().unlock();
        }
    }

    private void index(AttributeSet key) {
        String name = name(key);
        if (name != null) {
            byName.computeIfAbsent(name, n -> ConcurrentHashMap.newKeySet()).add(key);
        }
    }

    private void unindex(AttributeSet key) {
        String name = name(key);
        if (name != null) {
            byName.computeIfPresent(name, (n, keys) -> {
                keys.remove(key);
                return keys.isEmpty() ? null : keys;
            });
        }
    }

    /** The single value of the key's {@code name} attribute, or null if it has none. */
    private static String name(AttributeSet key) {
        Attribute name = key.getAttribute(KubernetesAttributesExtractor.NAME);
        return name == null || name.getValues().size() != 1 ? null : name.getValues().get(0).toString();
    }
}
