package io.kubequeue.operator;

import java.time.Duration;

import jakarta.annotation.Priority;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import jakarta.interceptor.Interceptor;

import org.jboss.logging.Logger;

import io.kubequeue.config.KubeQueueConfig;
import io.kubequeue.config.SettingRanges;
import io.quarkus.runtime.StartupEvent;

/**
 * Bounds how long the process takes to stop: once the JVM starts to shut down (SIGTERM from Kubernetes or a
 * terminal, or an exit), a daemon thread halts it after {@code kube-queue.shutdown-deadline}, whatever the other
 * threads are doing. Without it, a replica whose start-up recovery waits on an API server that accepts
 * connections but never answers ignores SIGTERM for minutes (each list retried, each try a 10 s timeout), and one
 * whose threads an OutOfMemoryError broke may never stop; Kubernetes then kills it only after the grace period,
 * and outside a cluster nothing does.
 *
 * <p>Armed first thing at start-up (before recovery), so a stop during recovery is bounded too. A normal
 * shutdown ends long before the deadline, and the daemon thread ends with the JVM.
 */
@Singleton
public class ShutdownDeadline {

    private static final Logger LOG = Logger.getLogger(ShutdownDeadline.class);

    private final Duration deadline;

    /** @throws IllegalArgumentException if {@code kube-queue.shutdown-deadline} is outside 1s to 1h, naming it */
    public ShutdownDeadline(KubeQueueConfig config) {
        this.deadline = SettingRanges.SHUTDOWN_DEADLINE.check(config.shutdownDeadline());
    }

    void arm(@Observes @Priority(Interceptor.Priority.PLATFORM_BEFORE) StartupEvent event) {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> watch(deadline,
                () -> Runtime.getRuntime().halt(1)), "kube-queue-shutdown-hook"));
    }

    /**
     * Starts the watchdog: a daemon thread that runs {@code halt} once {@code deadline} has passed, unless the JVM
     * has ended first. Returns at once.
     *
     * @param deadline how long the shutdown may take
     * @param halt     what ends the process (Runtime.halt in production)
     * @return the watchdog thread
     */
    static Thread watch(Duration deadline, Runnable halt) {
        Thread watchdog = new Thread(() -> {
            try {
                Thread.sleep(deadline.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            LOG.errorf("shutdown did not finish within kube-queue.shutdown-deadline (%s): halting now", deadline);
            halt.run();
        }, "kube-queue-shutdown-deadline");
        watchdog.setDaemon(true);
        watchdog.start();
        return watchdog;
    }
}
