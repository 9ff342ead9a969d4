package io.kubequeue.operator;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

import org.jboss.logging.Logger;

/**
 * Runs the steps of start-up: {@link #start()} starts them in list order, {@link #stop()} stops the ones that
 * started, in the reverse order. Plain Java, called from {@link StartupRecovery}'s {@code StartupEvent} and
 * {@code ShutdownEvent} observers.
 *
 * <p><b>A step that fails to start</b> ends start-up with its exception: the steps after it never start, and the
 * steps before it are <em>not</em> stopped here. That is what kube-queue has always done, and it is made explicit
 * rather than changed: Quarkus fires {@code ShutdownEvent} only once every {@code StartupEvent} observer has
 * returned (it registers that event after firing {@code StartupEvent}), so a start-up that throws never reached
 * the stop observer; the process then ends, and what stops itself ({@code @PreDestroy}: Leadership, the
 * PriorityClass and pod informers) stops as the container ends. Should {@link #stop()} be called after such a
 * failure anyway, it stops exactly the steps that started.
 *
 * <p><b>A stop that throws</b> ends the stopping there, with its exception, as the single stop method before it
 * did: the steps before it are not stopped.
 *
 * <p>Start and stop never run at the same time (Quarkus waits for start-up to end before it stops); the record
 * of what started is still guarded, since they run on different threads.
 */
final class StartupSteps {

    private static final Logger LOG = Logger.getLogger(StartupSteps.class);

    private final List<StartupStep> steps;
    /** The steps started so far, the last started on top; guarded by {@code this}. */
    private final Deque<StartupStep> started = new ArrayDeque<>();

    /** @param steps the steps in start order */
    StartupSteps(List<StartupStep> steps) {
        this.steps = List.copyOf(steps);
    }

    /** The steps in start order. */
    List<StartupStep> steps() {
        return steps;
    }

    /**
     * Starts every step in order, each once the one before it has returned.
     *
     * @throws RuntimeException the first step's failure, unchanged; the steps after it are not started
     */
    void start() {
        for (StartupStep step : steps) {
            LOG.debugf("start-up: starting %s", step.name());
            step.start().run();
            synchronized (this) {
                started.push(step);
            }
        }
    }

    /**
     * Stops the steps that started, the last started first; each is stopped once (a second call stops nothing).
     *
     * @throws RuntimeException a stop's failure, unchanged; the steps before it are not stopped
     */
    void stop() {
        for (StartupStep step = next(); step != null; step = next()) {
            LOG.debugf("shutdown: stopping %s", step.name());
            step.stop().run();
        }
    }

    private synchronized StartupStep next() {
        return started.poll();
    }
}
