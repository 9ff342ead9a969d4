package io.kubequeue.operator;

import java.time.Duration;
import java.util.Optional;

import io.javaoperatorsdk.operator.processing.event.rate.LinearRateLimiter;
import io.javaoperatorsdk.operator.processing.event.rate.RateLimiter;

/**
 * JOSDK's rate limiter for a controller whose rate limiting is off, with one state shared by every resource.
 *
 * <p>Why: JOSDK asks a controller's limiter for a state the first time it reconciles a resource and keeps it for as
 * long as it knows the resource. Its default limiter ({@link LinearRateLimiter}, deactivated unless
 * {@code @RateLimited} says otherwise) limits nothing, yet gives each resource a {@code RateState} with a
 * {@code LocalDateTime} of its own: some 100 bytes per job kept (issue 27, memory per pending job). This limiter
 * limits nothing either, so one state serves every resource.
 */
public final class UnlimitedRate implements RateLimiter<UnlimitedRate.State> {

    /** The one state of every resource: nothing is counted, so there is nothing to keep apart. */
    public static final class State implements RateLimiter.RateLimitState {
        private State() {
        }
    }

    /** The state every resource is given. */
    public static final State STATE = new State();

    /** The one limiter: it has no settings. */
    public static final UnlimitedRate LIMITER = new UnlimitedRate();

    private UnlimitedRate() {
    }

    /**
     * {@code configured} itself if it limits anything; else {@link #LIMITER}, which limits nothing as well.
     *
     * @param configured the limiter a controller's configuration gives (JOSDK's, from {@code @RateLimited})
     */
    public static RateLimiter<?> orShared(RateLimiter<?> configured) {
        return configured == null || configured instanceof LinearRateLimiter linear && !linear.isActivated()
                ? LIMITER : configured;
    }

    /** Never limited, as a deactivated {@link LinearRateLimiter}. */
    @Override
    public Optional<Duration> isLimited(RateLimiter.RateLimitState state) {
        return Optional.empty();
    }

    @Override
    public State initState() {
        return STATE;
    }
}
