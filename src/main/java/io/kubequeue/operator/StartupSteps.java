package io.kubequeue.operator;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.function.Consumer;

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
 * <p><b>A gate</b> ({@link StartupStep#gate}) that cannot start yet does not fail start-up: {@link #start()} returns,
 * and a thread of its own tries the gate again (1 s, doubling to 30 s) and then starts the steps after it, in order;
 * a failure there is handed to {@code onLateFailure} (the process exits, as after a failed start-up). {@link #stop()}
 * ends the waiting, and no step starts after it; a step that is starting on that thread when it comes is let finish
 * (at most 10 s) and is then stopped with the others, in the reverse order.
 *
 * <p>Start and stop otherwise never run at the same time (Quarkus waits for start-up to end before it stops); the
 * record of what started is guarded, since they run on different threads.
 */
final class StartupSteps {

    private static final Logger LOG = Logger.getLogger(StartupSteps.class);
    private static final Duration FIRST_RETRY = Duration.ofSeconds(1);
    private static final Duration LAST_RETRY = Duration.ofSeconds(30);
    /**
     * How long {@link #stop()} waits for a step that is starting on the gate's thread, so that it is stopped too
     * (within the pod's grace period; {@link ShutdownDeadline} ends the process after 25 s whatever happens).
     */
    private static final Duration LONGEST_START_AT_STOP = Duration.ofSeconds(10);

    private final List<StartupStep> steps;
    private final Duration firstRetry;
    private final Consumer<RuntimeException> onLateFailure;
    /** The steps started so far, the last started on top; guarded by {@code this}. */
    private final Deque<StartupStep> started = new ArrayDeque<>();
    /** Set by {@link #stop()}: no step starts after it; guarded by {@code this}. */
    private boolean stopping;
    /** The thread waiting for a gate, if one waits; guarded by {@code this}. */
    private Thread waiting;

    /** @param steps the steps in start order; a late failure is rethrown on the waiting thread */
    StartupSteps(List<StartupStep> steps) {
        this(steps, FIRST_RETRY, e -> {
            throw e;
        });
    }

    /**
     * @param steps         the steps in start order
     * @param firstRetry    the wait before a gate is tried again (it doubles, up to 30 s)
     * @param onLateFailure told of a step's failure to start after a gate opened, on the waiting thread
     */
    StartupSteps(List<StartupStep> steps, Duration firstRetry, Consumer<RuntimeException> onLateFailure) {
        this.steps = List.copyOf(steps);
        this.firstRetry = firstRetry;
        this.onLateFailure = onLateFailure;
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
        startFrom(0);
    }

    /** Starts the steps from index {@code first} on; at a gate that cannot start yet, waits for it on a thread. */
    private void startFrom(int first) {
        for (int i = first; i < steps.size(); i++) {
            StartupStep step = steps.get(i);
            LOG.debugf("start-up: starting %s", step.name());
            if (step.gate() != null && !step.gate().getAsBoolean()) {
                waitFor(i);
                return;
            }
            synchronized (this) {
                if (stopping) {
                    return;
                }
            }
            step.start().run();
            synchronized (this) {
                started.push(step);
            }
        }
    }

    /** Tries the gate at {@code index} again with backoff, on a thread of its own, then starts the steps after it. */
    private synchronized void waitFor(int index) {
        StartupStep gate = steps.get(index);
        LOG.infof("start-up waits for step \"%s\"; the steps after it start once it can", gate.name());
        waiting = new Thread(() -> {
            Duration wait = firstRetry;
            try {
                do {
                    Thread.sleep(wait.toMillis());
                    synchronized (this) {
                        if (stopping) {
                            return;
                        }
                    }
                    wait = wait.multipliedBy(2).compareTo(LAST_RETRY) > 0 ? LAST_RETRY : wait.multipliedBy(2);
                } while (!gate.gate().getAsBoolean());
            } catch (InterruptedException e) {
                return; // stopped
            }
            synchronized (this) {
                if (stopping) {
                    return;
                }
                started.push(gate);
            }
            try {
                startFrom(index + 1);
            } catch (RuntimeException e) {
                onLateFailure.accept(e);
            }
        }, "kube-queue-startup");
        waiting.setDaemon(true);
        waiting.start();
    }

    /**
     * Stops the steps that started, the last started first; each is stopped once (a second call stops nothing).
     *
     * @throws RuntimeException a stop's failure, unchanged; the steps before it are not stopped
     */
    void stop() {
        Thread starting;
        synchronized (this) {
            stopping = true;
            starting = waiting;
            if (starting != null) {
                starting.interrupt();
            }
        }
        if (starting != null && starting != Thread.currentThread()) {
            try {
                // a step starting on the gate's thread now is recorded once its start returns: wait for it, so that
                // it is stopped as well, before the ones it came after
                starting.join(LONGEST_START_AT_STOP.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (starting.isAlive()) {
                LOG.warnf("shutdown: a start-up step still starts after %s; stopping the others", LONGEST_START_AT_STOP);
            }
        }
        for (StartupStep step = next(); step != null; step = next()) {
            LOG.debugf("shutdown: stopping %s", step.name());
            step.stop().run();
        }
    }

    private synchronized StartupStep next() {
        return started.poll();
    }
}
