package io.kubequeue.operator;

import java.time.Clock;

import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import org.jboss.logging.Logger;

import io.kubequeue.config.KubeQueueConfig;
import io.kubequeue.scheduler.Scheduler;
import io.kubequeue.scheduler.SchedulingPolicy;

/** Makes the one scheduler bean from configuration. */
public class SchedulerProducer {

    private static final Logger LOG = Logger.getLogger(SchedulerProducer.class);

    /** @throws IllegalArgumentException when the backoff bounds are inconsistent (initial above max) */
    @Produces
    @Singleton
    Scheduler scheduler(KubeQueueConfig config) {
        SchedulingPolicy policy = SchedulingPolicy.of(config.strictPriority(), config.strictConsistency());
        if (config.strictPriority() && config.strictConsistency()) {
            LOG.info("StrictPriority and StrictConsistency are both true: the blocking queue wins, and it already "
                    + "retries from the head on every release");
        }
        LOG.infof("QueueGroupPlugin=%s StrictPriority=%s StrictConsistency=%s -> policy %s, backoff %s..%s",
                config.queueGroupPlugin().value(), config.strictPriority(), config.strictConsistency(), policy,
                config.backoff().initial(), config.backoff().max());
        return new Scheduler(new Scheduler.Settings(policy, config.backoff().initial(), config.backoff().max()),
                Clock.systemUTC());
    }
}
