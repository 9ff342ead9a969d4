package io.kubequeue.scheduler.model;

/**
 * What became of one {@link Eviction}, as the admission side found out; {@link io.kubequeue.scheduler.Scheduler#settleEviction} settles it.
 * <ul>
 *   <li>{@link Applied}: the job is suspended now; its quota is released once the informer shows it suspended (the
 *       job's own controller then stops its pods);</li>
 *   <li>{@link Refused}: not applied (the job is no longer under that admission, or the API server refused): it stays
 *       admitted and charged, and a reclaim that counted on it is given up;</li>
 *   <li>{@link Gone}: the job is gone: forgotten, its quota released;</li>
 *   <li>{@link Unknown}: the answer was lost and the job could not be read back: it stays charged, as being evicted,
 *       until a read or an observation settles it.</li>
 * </ul>
 */
public sealed interface EvictionOutcome {

    /** Not applied. */
    EvictionOutcome REFUSED = new Refused();
    /** The job is gone. */
    EvictionOutcome GONE = new Gone();
    /** Outcome unknown. */
    EvictionOutcome UNKNOWN = new Unknown();

    /**
     * @param resourceVersion the {@code metadata.resourceVersion} the write produced (or read back)
     * @param writtenAt       the time the write stamped on the eviction's history ({@link Eviction#writtenAt}); null:
     *                        the time it was decided (the history written as decided)
     */
    record Applied(String resourceVersion, java.time.Instant writtenAt) implements EvictionOutcome {

        /** Written with the history as decided. */
        public Applied(String resourceVersion) {
            this(resourceVersion, null);
        }
    }

    /** See {@link #REFUSED}. */
    record Refused() implements EvictionOutcome {
    }

    /** See {@link #GONE}. */
    record Gone() implements EvictionOutcome {
    }

    /** See {@link #UNKNOWN}. */
    record Unknown() implements EvictionOutcome {
    }
}
