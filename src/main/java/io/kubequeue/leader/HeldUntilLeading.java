package io.kubequeue.leader;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import io.kubequeue.collections.BoundedMaps;

/**
 * Writes a follower must not make (events, conditions) but that should not be lost: kept, the latest per key,
 * until this replica leads, then run by {@link #runAll()}. Bounded: past {@code capacity} keys the oldest is
 * dropped. A kept write runs later than asked, so it must re-check what it writes (e.g. re-read the job).
 */
public final class HeldUntilLeading {

    private final Leadership leadership;
    private final Map<String, Runnable> held;

    /**
     * @param leadership who leads
     * @param capacity   most writes kept; the oldest go first beyond it
     */
    public HeldUntilLeading(Leadership leadership, int capacity) {
        this.leadership = leadership;
        this.held = BoundedMaps.keepingNewest(capacity);
    }

    /**
     * Keeps a write, replacing an older one under the same key; runs everything kept at once if this replica
     * started to lead meanwhile (its own {@link #runAll()} may have come before this write was kept).
     */
    public void hold(String key, Runnable write) {
        synchronized (held) {
            held.put(key, write);
        }
        if (leadership.isLeader()) {
            runAll();
        }
    }

    /** Runs, once, every write kept so far; called when this replica starts to lead. */
    public void runAll() {
        List<Runnable> writes;
        synchronized (held) {
            writes = new ArrayList<>(held.values());
            held.clear();
        }
        writes.forEach(Runnable::run);
    }
}
