package io.kubequeue.collections;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Maps that hold at most a given number of entries, for what kube-queue remembers per job or object without
 * letting memory grow with the cluster's history. Not thread-safe: callers hold their own lock.
 */
public final class BoundedMaps {

    private BoundedMaps() {
    }

    /**
     * A map in insertion order that drops its oldest entry once it holds more than {@code capacity}.
     *
     * @param capacity the most entries kept (at least 1)
     */
    public static <K, V> Map<K, V> keepingNewest(int capacity) {
        return bounded(capacity, false);
    }

    /**
     * A map in access order (a {@code get} or {@code put} makes an entry the newest) that drops the least recently
     * used entry once it holds more than {@code capacity}.
     *
     * @param capacity the most entries kept (at least 1)
     */
    public static <K, V> Map<K, V> keepingRecentlyUsed(int capacity) {
        return bounded(capacity, true);
    }

    private static <K, V> Map<K, V> bounded(int capacity, boolean accessOrder) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, got " + capacity);
        }
        return new LinkedHashMap<>(16, 0.75f, accessOrder) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
                return size() > capacity;
            }
        };
    }
}
