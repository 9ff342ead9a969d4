package io.kubequeue.operator;

import java.util.Objects;

/**
 * One named step of start-up ({@link StartupRecovery#steps()}): what it starts, and what stops it again at
 * shutdown. {@link StartupSteps} starts the steps in their order and stops them in the reverse order.
 *
 * @param name  what the step starts, in a few words (log lines, the order test)
 * @param start starts it; runs once, after every step before it has started; a failure ends start-up
 * @param stop  stops it; runs once at shutdown, before the steps before it are stopped; {@link #NOTHING} when the
 *              step leaves nothing running, or what it starts stops itself (a bean's {@code @PreDestroy})
 */
record StartupStep(String name, Runnable start, Runnable stop) {

    /** The stop of a step that has nothing to stop at shutdown. */
    static final Runnable NOTHING = () -> {
    };

    /** @throws NullPointerException if any part is missing ({@link #NOTHING} stands for no stop) */
    StartupStep {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(start, "start");
        Objects.requireNonNull(stop, "stop");
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
