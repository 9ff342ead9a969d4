package io.kubequeue.scheduler.model;

import java.time.Duration;
import java.util.Objects;

/**
 * Tunables of the core.
 *
 * @param policy           how queues are worked
 * @param initialBackoff   first unschedulable backoff (seed/kube-scheduler: 1 s)
 * @param maxBackoff       backoff cap (kube-scheduler: 20 s); the backoff doubles from initial to this
 * @param reclaim          whether a group may reclaim its min from borrowing groups, and how often one job may be
 *                         a victim (docs/policies.md, "Reclaim")
 * @param admissionTimeout how long an admitted job may go without a running pod before it is suspended again and
 *                         requeued; null: never (docs/policies.md, "Admission timeout"). A quota group may set its
 *                         own ({@link QuotaNode#admissionTimeout()})
 */
public record SchedulerSettings(SchedulingPolicy policy, Duration initialBackoff, Duration maxBackoff, Reclaim reclaim,
                                Duration admissionTimeout) {
    public SchedulerSettings {
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(reclaim, "reclaim");
        if (initialBackoff.isNegative() || initialBackoff.isZero() || maxBackoff.compareTo(initialBackoff) < 0) {
            throw new IllegalArgumentException("backoff must satisfy 0 < initial <= max, got initial="
                    + initialBackoff + " max=" + maxBackoff);
        }
        if (admissionTimeout != null && (admissionTimeout.isNegative() || admissionTimeout.isZero())) {
            admissionTimeout = null; // zero: off, as for a quota group
        }
    }

    /** Settings without reclaim and without an admission timeout. */
    public SchedulerSettings(SchedulingPolicy policy, Duration initialBackoff, Duration maxBackoff) {
        this(policy, initialBackoff, maxBackoff, Reclaim.OFF, null);
    }

    /** The default policy with kube-scheduler's backoff, 1 s doubling to 20 s. */
    public static SchedulerSettings defaults() {
        return new SchedulerSettings(SchedulingPolicy.DEFAULT, Duration.ofSeconds(1), Duration.ofSeconds(20));
    }

    /** The same, with reclaim on and at most {@code maxPerHour} evictions of one job as a victim per hour. */
    public SchedulerSettings withReclaim(int maxPerHour) {
        return new SchedulerSettings(policy, initialBackoff, maxBackoff, new Reclaim(true, maxPerHour),
                admissionTimeout);
    }

    /** The same, with this global admission timeout (null or zero: off). */
    public SchedulerSettings withAdmissionTimeout(Duration timeout) {
        return new SchedulerSettings(policy, initialBackoff, maxBackoff, reclaim, timeout);
    }

    /**
     * Reclaim of guaranteed quota (docs/policies.md, "Reclaim").
     *
     * @param enabled    whether a job that fits its group's min, but not the free room, suspends jobs of groups that
     *                   borrow above their own min
     * @param maxPerHour how many times in an hour one job may be a victim; at least 1
     */
    public record Reclaim(boolean enabled, int maxPerHour) {
        /** Reclaim off. */
        public static final Reclaim OFF = new Reclaim(false, 3);

        public Reclaim {
            if (maxPerHour < 1) {
                throw new IllegalArgumentException("a job must be allowed to be a victim at least once an hour, got "
                        + maxPerHour);
            }
        }
    }
}
