package io.kubequeue.bench;

import java.util.Map;

/**
 * A queue policy the benchmark runs kube-queue under, as the seed's two env vars set it (docs/policies.md), and the
 * reference admitter's matching mode.
 */
enum Policy {
    /**
     * {@code StrictConsistency=true}: every release retries the backed-off jobs; a smaller job may pass a head that
     * does not fit.
     */
    STRICT("strict", false, true),
    /** Both switches false: a job that does not fit waits out its backoff; jobs behind it may pass. */
    DEFAULT("default", false, false),
    /** {@code StrictPriority=true}: per quota group only the head is tried; nothing passes it. */
    BLOCKING("blocking", true, false);

    /** The {@code --policy} value. */
    final String option;
    /** kube-queue's {@code StrictPriority} (the blocking queue). */
    final boolean strictPriority;
    /** kube-queue's {@code StrictConsistency} (retry on release). */
    final boolean strictConsistency;

    Policy(String option, boolean strictPriority, boolean strictConsistency) {
        this.option = option;
        this.strictPriority = strictPriority;
        this.strictConsistency = strictConsistency;
    }

    /** The env vars kube-queue is started with. */
    Map<String, String> env() {
        return Map.of("StrictPriority", Boolean.toString(strictPriority),
                "StrictConsistency", Boolean.toString(strictConsistency));
    }

    /**
     * The reference admitter's mode an ideal admitter under this policy has: {@link #BLOCKING} (nothing passes a
     * leaf's head) for the blocking queue, else {@link #STRICT} (a job that fits passes the jobs before it that do
     * not; retried on every change). The default policy's backoff is what it costs, so its ideal is the same as
     * {@link #STRICT}'s.
     */
    Policy reference() {
        return this == BLOCKING ? BLOCKING : STRICT;
    }

    /** The reference's mode by name, as the report and the run names say it: {@code blocking} or {@code passing}. */
    String referenceMode() {
        return reference() == BLOCKING ? "blocking" : "passing";
    }

    /** For the report: {@code StrictConsistency=true}, {@code StrictPriority=true} or {@code default policy}. */
    String label() {
        return switch (this) {
            case STRICT -> "StrictConsistency=true";
            case BLOCKING -> "StrictPriority=true";
            case DEFAULT -> "default policy";
        };
    }

    /** @throws IllegalArgumentException naming the valid values */
    static Policy of(String option) {
        for (Policy p : values()) {
            if (p.option.equals(option)) {
                return p;
            }
        }
        throw new IllegalArgumentException("no policy " + option);
    }
}
