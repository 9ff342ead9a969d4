package io.kubequeue.collections;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One shared instance per distinct value, for at most {@code limit} distinct values: past that, each value stays
 * its own, so tenants writing many distinct values cannot grow it without bound. What is kept is never let go.
 * Thread-safe. Values must be immutable (or never changed once shared) and have a value {@code equals}.
 *
 * @param <T> the value's type
 */
public final class BoundedInterner<T> {

    private final int limit;
    private final Map<T, T> shared = new ConcurrentHashMap<>();

    /** @param limit the most distinct values shared */
    public BoundedInterner(int limit) {
        this.limit = limit;
    }

    /**
     * @param value a value, not null
     * @return the shared instance equal to {@code value}, or {@code value} itself if it is the first of its kind or
     *         the limit is reached
     */
    public T intern(T value) {
        T known = shared.get(value);
        if (known != null) {
            return known;
        }
        if (shared.size() >= limit) {
            return value;
        }
        T raced = shared.putIfAbsent(value, value);
        return raced == null ? value : raced;
    }

    /** Whether {@code value} is itself the shared instance of its kind (not merely equal to it). */
    public boolean isShared(T value) {
        return shared.get(value) == value;
    }
}
