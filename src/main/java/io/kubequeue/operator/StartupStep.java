package io.kubequeue.operator;

import java.util.Objects;
import java.util.function.BooleanSupplier;

/**
 * One named step of start-up ({@link StartupRecovery#steps()}): what it starts, and what stops it again at
 * shutdown. {@link StartupSteps} starts the steps in their order and stops them in the reverse order.
 *
 * @param name  what the step starts, in a few words (log lines, the order test)
 * @param start starts it; runs once, after every step before it has started; a failure ends start-up
 * @param stop  stops it; runs once at shutdown, before the steps before it are stopped; {@link #NOTHING} when the
 *              step leaves nothing running, or what it starts stops itself (a bean's {@code @PreDestroy})
 * @param gate  for a step that may have to wait ({@link #gate}): one try, true once started; else null
 */
record StartupStep(String name, Runnable start, Runnable stop, BooleanSupplier gate) {

    /** The stop of a step that has nothing to stop at shutdown. */
    static final Runnable NOTHING = () -> {
    };

    /** @throws NullPointerException if any part is missing ({@link #NOTHING} stands for no stop) */
    StartupStep {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(start, "start");
        Objects.requireNonNull(stop, "stop");
    }

    /** A step that starts at once, or fails start-up. */
    StartupStep(String name, Runnable start, Runnable stop) {
        this(name, start, stop, null);
    }

    /**
     * A step that may not be able to start yet, and must not fail start-up for it (e.g. a Secret RBAC does not let
     * it read yet): {@code tryOnce} tries it and says whether it started. If not, {@link StartupSteps} starts the
     * steps after it on a thread of its own once it has (trying again with backoff), and start-up returns meanwhile,
     * so that the health endpoints are served and say why the replica is not ready.
     *
     * @param name    what it starts
     * @param tryOnce one try; true once started
     */
    static StartupStep gate(String name, BooleanSupplier tryOnce) {
        return new StartupStep(name, NOTHING, NOTHING, Objects.requireNonNull(tryOnce, "tryOnce"));
    }

    /**
     * A step with nothing to stop at shutdown.
     *
     * @param name  what it starts
     * @param start starts it
     */
    static StartupStep startOnly(String name, Runnable start) {
        return new StartupStep(name, start, NOTHING);
    }

    @Override
    public String toString() {
        return name;
    }
}
