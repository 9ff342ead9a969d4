package io.kubequeue.scheduler.model;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * When a pending job is expected to start (issue 30; docs/observability.md, "Start-time estimates"): computed by
 * replaying the core forward on a copy of its state, every job running for its predicted run time.
 *
 * @param state       what kind of answer this is
 * @param eta         the start with every job running its median (p50) run time; null unless {@link State#ESTIMATED}
 * @param etaLate     the start with every job running its 90th-percentile run time; null if the late replay did not
 *                    start it within its horizon, or unless estimated
 * @param runsFor     how long the job itself is expected to run (p50); null if unknown
 * @param assumptions what the estimate assumes and rests on, one line each; other jobs appear as references, rendered
 *                    per reader ({@link Explanation#render})
 * @param computedAt  when the replay it comes from was taken: the answer is that old
 */
public record Estimate(State state, Instant eta, Instant etaLate, Duration runsFor, List<Explanation> assumptions,
                       Instant computedAt) {

    /** What kind of answer an estimate is. */
    public enum State {
        /** A start time, with its band. */
        ESTIMATED,
        /** Its request exceeds a max on its path: it never starts under this tree. */
        NEVER_FITS,
        /** Its namespace (or quota-name label) matches no quota group. */
        NO_QUOTA_GROUP,
        /** It waits on jobs whose run time is unknown (no history, no annotation, no deadline). */
        UNKNOWN,
        /**
         * Nothing the replay foresees frees its room: a quota group that admits nothing now, or use outside
         * kube-queue; the reason says which.
         */
        BLOCKED,
        /** Not started within the replay's horizon (or its budget of cycles). */
        BEYOND_HORIZON
    }

    public Estimate {
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(computedAt, "computedAt");
        assumptions = List.copyOf(assumptions);
    }

    /** How old the estimate is at {@code now}; never negative. */
    public Duration age(Instant now) {
        Duration age = Duration.between(computedAt, now);
        return age.isNegative() ? Duration.ZERO : age;
    }
}
