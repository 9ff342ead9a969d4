package io.kubequeue.bench;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.KubernetesAttributesExtractor;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.ResumableWatches;
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
 *
 * <p>Lists are paged as a real API server pages them, which fabric8's store does not: a list with {@code limit=N}
 * answers at most N items, with {@code metadata.continue} and {@code remainingItemCount} while more are left, and
 * a list with that {@code continue} token answers the next N of the <em>same</em> snapshot (the server's
 * consistent read at the first page's resourceVersion). Without it a client's pages of 500 (kube-queue's informers
 * and start-up, client-go's and kubectl's default) get every object in one answer: 100,000 Jobs at once, which no
 * real server sends and no small heap holds. A token whose snapshot is gone answers 410 Gone, as an expired one
 * does, and the client lists again.
 */
final class IndexedCrudDispatcher extends KubernetesCrudDispatcher {

    private final Map<String, Set<AttributeSet>> byName = new ConcurrentHashMap<>();
    /** Guards the store (a LinkedHashMap) between fabric8's writes and the named reads served here. */
    private final ReadWriteLock lock = new ReentrantReadWriteLock();
    private final KubernetesAttributesExtractor extractor;
    /** The snapshots of lists being paged, by continue token's prefix; the oldest go past {@link #SNAPSHOTS}. */
    private final Map<String, Snapshot> snapshots = new LinkedHashMap<>();
    private final AtomicLong lists = new AtomicLong();
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Lists being paged at once at most (a client abandons a list on an error and starts a new one). */
    static final int SNAPSHOTS = 16;

    /** The items of one list, as the first page's answer had them, and the answer's other fields. */
    private record Snapshot(ObjectNode list, ArrayNode items) {
    }

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
        Map<String, String> params = params(path);
        if (params.containsKey("limit") || params.containsKey("continue")) {
            return page(path, params);
        }
        AttributeSet query = getKey(path);
        if (name(query) == null) {
            return super.handleGet(path);
        }
        Map.Entry<AttributeSet, String> found = findResource(query);
        return found == null ? new MockResponse().setResponseCode(404)
                : new MockResponse().setResponseCode(200).setBody(found.getValue());
    }

    /**
     * A watch resumed from a resourceVersion starts with the objects changed after it, as ADDED, instead of every
     * stored object as fabric8's mock sends (a real API server sends the changes since that version; this store keeps
     * only each object's latest state, so several changes of one object come as one, and a deletion since is not
     * sent). Without a version, or with "0", every object, as on a real server and as fabric8. A watch of one object
     * by name goes to fabric8 ({@code ResumedWatchTest}).
     */
    @Override
    public MockResponse handleWatch(String path) {
        String since = params(path).get("resourceVersion");
        if (since == null || since.isEmpty() || "0".equals(since) || path.contains("fieldSelector")
                || !since.chars().allMatch(Character::isDigit)) {
            return super.handleWatch(path);
        }
        long after = Long.parseLong(since);
        return ResumableWatches.watch(this, context,
                getAttributeExtractor().fromPath(path), (watched, send) -> {
                    lock.readLock().lock(); // a write waits until the watch has its first events: none is lost
                    try {
                        for (Map.Entry<AttributeSet, String> stored : map.entrySet()) {
                            // the match fabric8's own watch listener applies
                            if (stored.getKey().matches(watched) && versionOf(stored.getValue()) > after) {
                                send.accept(stored.getValue(), Watcher.Action.ADDED);
                            }
                        }
                    } finally {
                        lock.readLock().unlock();
                    }
                });
    }

    /** The stored object's metadata.resourceVersion as a number; -1 if it has none that is one. */
    private static long versionOf(String json) {
        try {
            String version = JSON.readTree(json).path("metadata").path("resourceVersion").asText("");
            return version.isEmpty() || !version.chars().allMatch(Character::isDigit) ? -1 : Long.parseLong(version);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            return -1;
        }
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

    /**
     * One page of a list: the first (no {@code continue}) lists everything through fabric8 and keeps the snapshot
     * while pages are left; the next ones are cut from it.
     */
    private MockResponse page(String path, Map<String, String> params) {
        long limit;
        try {
            limit = params.containsKey("limit") ? Long.parseLong(params.get("limit")) : 0;
        } catch (NumberFormatException e) {
            limit = 0;
        }
        String token = params.get("continue");
        Snapshot snapshot;
        String id;
        int from;
        if (token == null || token.isEmpty()) {
            MockResponse whole = super.handleGet(withoutPaging(path));
            String body = whole.getBody() == null ? null : whole.getBody().readUtf8();
            if (body == null || whole.code() != 200) {
                return whole;
            }
            try {
                JsonNode tree = JSON.readTree(body);
                if (!(tree instanceof ObjectNode list) || !(list.get("items") instanceof ArrayNode items)) {
                    return whole;
                }
                list.remove("items"); // kept apart: each page copies the rest of the answer, not every item
                snapshot = new Snapshot(list, items);
            } catch (java.io.IOException e) {
                return whole;
            }
            id = "bench-" + lists.incrementAndGet();
            from = 0;
        } else {
            int dot = token.lastIndexOf(':');
            id = dot < 0 ? token : token.substring(0, dot);
            try {
                from = dot < 0 ? -1 : Integer.parseInt(token.substring(dot + 1));
            } catch (NumberFormatException e) {
                from = -1;
            }
            synchronized (snapshots) {
                snapshot = snapshots.get(id);
            }
            if (snapshot == null || from < 0 || from > snapshot.items().size()) {
                return new MockResponse().setResponseCode(410).setBody("{\"kind\":\"Status\",\"apiVersion\":\"v1\","
                        + "\"status\":\"Failure\",\"reason\":\"Expired\",\"code\":410,\"message\":"
                        + "\"The provided continue parameter is too old to display a consistent list result.\"}");
            }
        }
        int total = snapshot.items().size();
        int to = limit <= 0 ? total : (int) Math.min(total, from + limit);
        ObjectNode answer = snapshot.list().deepCopy();
        ArrayNode items = answer.putArray("items");
        for (int i = from; i < to; i++) {
            items.add(snapshot.items().get(i));
        }
        ObjectNode meta = answer.has("metadata") && answer.get("metadata") instanceof ObjectNode m ? m
                : answer.putObject("metadata");
        synchronized (snapshots) {
            if (to < total) {
                meta.put("continue", id + ":" + to);
                meta.put("remainingItemCount", total - to);
                snapshots.put(id, snapshot);
                while (snapshots.size() > SNAPSHOTS) {
                    snapshots.remove(snapshots.keySet().iterator().next());
                }
            } else {
                meta.remove("continue");
                meta.remove("remainingItemCount");
                snapshots.remove(id);
            }
        }
        try {
            return new MockResponse().setResponseCode(200).setBody(JSON.writeValueAsString(answer));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The query parameters of a request path, decoded. */
    static Map<String, String> params(String path) {
        Map<String, String> params = new LinkedHashMap<>();
        int q = path.indexOf('?');
        if (q < 0) {
            return params;
        }
        for (String part : path.substring(q + 1).split("&")) {
            if (part.isEmpty()) {
                continue;
            }
            int eq = part.indexOf('=');
            String key = URLDecoder.decode(eq < 0 ? part : part.substring(0, eq), StandardCharsets.UTF_8);
            String value = eq < 0 ? "" : URLDecoder.decode(part.substring(eq + 1), StandardCharsets.UTF_8);
            params.put(key, value);
        }
        return params;
    }

    /** The path without its {@code limit} and {@code continue} parameters. */
    static String withoutPaging(String path) {
        int q = path.indexOf('?');
        if (q < 0) {
            return path;
        }
        List<String> kept = new ArrayList<>();
        for (String part : path.substring(q + 1).split("&")) {
            String key = part.contains("=") ? part.substring(0, part.indexOf('=')) : part;
            if (!part.isEmpty() && !key.equals("limit") && !key.equals("continue")) {
                kept.add(part);
            }
        }
        return path.substring(0, q) + (kept.isEmpty() ? "" : "?" + String.join("&", kept));
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
