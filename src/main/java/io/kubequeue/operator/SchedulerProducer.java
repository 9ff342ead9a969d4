package io.kubequeue.operator;

import java.time.Clock;

import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import org.jboss.logging.Logger;

import io.kubequeue.config.KubeQueueConfig;
import io.kubequeue.config.SettingRanges;
import io.kubequeue.scheduler.Scheduler;
import io.kubequeue.scheduler.model.SchedulerSettings;
import io.kubequeue.scheduler.model.SchedulingPolicy;

/** Makes the one scheduler bean from configuration. */
public class SchedulerProducer {

    private static final Logger LOG = Logger.getLogger(SchedulerProducer.class);

    /**
     * The scheduler with the policy, backoff, reclaim and admission timeout of the settings.
     *
     * @throws IllegalArgumentException when the backoff bounds are inconsistent (initial above max), or
     *                                  {@code kube-queue.reclaim.max-per-hour} is outside 1 to 60
     */
    @Produces
    @Singleton
    Scheduler scheduler(KubeQueueConfig config) {
        SchedulingPolicy policy = SchedulingPolicy.of(config.strictPriority(), config.strictConsistency());
        if (config.strictPriority() && config.strictConsistency()) {
            LOG.info("StrictPriority and StrictConsistency are both true: the blocking queue wins, and it already "
                    + "retries from the head on every release");
        }
        int maxPerHour = SettingRanges.RECLAIM_MAX_PER_HOUR.check(config.reclaim().maxPerHour());
        SchedulerSettings settings = new SchedulerSettings(policy, config.backoff().initial(), config.backoff().max())
                .withAdmissionTimeout(config.admissionTimeout().orElse(null));
        if (config.reclaim().enabled()) {
            settings = settings.withReclaim(maxPerHour);
        }
        LOG.infof("QueueGroupPlugin=%s StrictPriority=%s StrictConsistency=%s -> policy %s, backoff %s..%s, reclaim %s,"
                        + " admission timeout %s", config.queueGroupPlugin().value(), config.strictPriority(),
                config.strictConsistency(), policy, config.backoff().initial(), config.backoff().max(),
                settings.reclaim().enabled() ? "on (a job at most " + maxPerHour + " times an hour)" : "off",
                settings.admissionTimeout() == null ? "off (unless a quota group sets one)" : settings.admissionTimeout());
        return new Scheduler(settings, Clock.systemUTC());
    }
}
