package io.kubequeue.scheduler;

import java.util.Optional;

/** Evictions of admitted jobs: reclaim victims and timed-out admissions. Skeleton; filled in next. */
final class Evictions {

    void settle(JobKey key, AdmissionRecord record, EvictionOutcome outcome) {
    }

    boolean unsettled(JobKey key, AdmissionRecord record) {
        return false;
    }

    void podRan(JobKey key) {
    }

    void podsListed() {
    }

    Optional<java.time.Instant> nextTimeout() {
        return Optional.empty();
    }
}
