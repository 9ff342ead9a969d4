package io.kubequeue.operator;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;

import org.jboss.logging.Logger;

import io.kubequeue.api.QueueMetrics;
import io.kubequeue.concurrent.DaemonThreads;
import io.kubequeue.config.KubeQueueConfig;
import io.kubequeue.config.SettingRanges;
import io.kubequeue.leader.Leadership;
import io.kubequeue.scheduler.Scheduler;
import io.quarkus.runtime.StartupEvent;

/**
 * Keeps the start-time estimates fresh (issue 30; docs/observability.md, "Start-time estimates"): once a second, on a
 * thread of its own (never the scheduling cycle's), asks the core to replay if it changed since the last replay and
 * that one is at least {@code kube-queue.estimates.interval} old ({@link Scheduler#refreshEstimatesIfDue}: a counter
 * compared, nothing more, when nothing is due). Only the leader replays: the read API and the visibility API answer
 * from the leader ({@code ReadApiForwarding}), so a follower's estimates would be read by nobody. Each replay's time
 * goes into {@code kube_queue_estimate_refresh_seconds} ({@link QueueMetrics#estimatesRefreshed}). With
 * {@code kube-queue.estimates.enabled=false} nothing is scheduled.
 */
@Singleton
public class EstimateRefresher {

    private static final Logger LOG = Logger.getLogger(EstimateRefresher.class);
    /** How often the timer looks whether a replay is due, milliseconds. */
    static final long TICK_MILLIS = 1000;

    private final Scheduler scheduler;
    private final KubeQueueConfig.Estimates settings;
    private final Leadership leadership;
    private final QueueMetrics metrics;
    private ScheduledExecutorService timer;

    /** Built by CDI. */
    public EstimateRefresher(Scheduler scheduler, KubeQueueConfig config, Leadership leadership, QueueMetrics metrics) {
        this.scheduler = scheduler;
        this.settings = config.estimates();
        this.leadership = leadership;
        this.metrics = metrics;
    }

    void onStart(@Observes StartupEvent event) {
        if (!settings.enabled()) {
            LOG.info("start-time estimates off (kube-queue.estimates.enabled=false)");
            return;
        }
        scheduler.tuneEstimates(SettingRanges.ESTIMATES_INTERVAL.check(settings.interval()),
                SettingRanges.ESTIMATES_HORIZON.check(settings.horizon()),
                SettingRanges.ESTIMATES_MAX_CYCLES.check(settings.maxCycles()));
        LOG.infof("start-time estimates: a replay at most every %s, %s ahead, at most %d cycles each",
                settings.interval(), settings.horizon(), settings.maxCycles());
        timer = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("kube-queue-estimates"));
        timer.scheduleWithFixedDelay(this::tick, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** One look: replays if due, on the leader; a failure is logged and the next tick tries again. */
    void tick() {
        if (!leadership.isLeader()) {
            return;
        }
        try {
            long start = System.nanoTime();
            long cpuStart = cpuNanos();
            if (scheduler.refreshEstimatesIfDue()) {
                long cpu = cpuStart < 0 ? -1 : Math.max(0, cpuNanos() - cpuStart);
                metrics.estimatesRefreshed(System.nanoTime() - start, cpu, scheduler.estimateAccuracy());
            }
        } catch (RuntimeException e) { // the timer must keep running: a failed replay is tried again
            LOG.warn("start-time estimates: replay failed; the last estimates stay", e);
        }
    }

    /** This thread's CPU time, nanoseconds; -1 where the JVM does not measure it. */
    private static long cpuNanos() {
        try {
            java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
            return threads.isCurrentThreadCpuTimeSupported() ? threads.getCurrentThreadCpuTime() : -1;
        } catch (UnsupportedOperationException e) {
            return -1;
        }
    }

    @PreDestroy
    void stop() {
        if (timer != null) {
            timer.shutdownNow();
        }
    }
}
