package io.kubequeue.priority;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;

import org.jboss.logging.Logger;

import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClass;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.kubequeue.scheduler.model.PriorityClasses;
import io.kubequeue.scheduler.ClusterIntake;
import io.kubequeue.scheduler.Scheduler;

/**
 * Watches the cluster's PriorityClasses ({@code scheduling.k8s.io/v1}) and hands every change to the scheduler,
 * which re-sorts the pending jobs that use them: a class created after its jobs, or a changed value, re-orders
 * the queue at once (docs/behaviour.md §4).
 *
 * <p>If the classes cannot be read (RBAC, API server away) start-up goes on with none: jobs are ordered by their
 * explicit {@code priority}, else 0, and the watch keeps retrying. Nothing is admitted past a quota either way;
 * only the order is affected.
 */
@Singleton
public class PriorityClassWatch {

    private static final Logger LOG = Logger.getLogger(PriorityClassWatch.class);

    private final KubernetesClient client;
    private final ClusterIntake scheduler;
    private SharedIndexInformer<PriorityClass> informer;
    private volatile Runnable onChange = () -> {
    };

    /** @param scheduler where the PriorityClasses in force go ({@link Scheduler#replacePriorityClasses}) */
    public PriorityClassWatch(KubernetesClient client, ClusterIntake scheduler) {
        this.client = client;
        this.scheduler = scheduler;
    }

    /**
     * Starts the watch and waits up to {@code firstListWait} for the first list.
     *
     * @param onChange called after each change has reached the scheduler, so a cycle can run
     */
    public void start(Duration firstListWait, Runnable onChange) {
        this.onChange = onChange;
        informer = client.scheduling().v1().priorityClasses().runnableInformer(0);
        informer.exceptionHandler((started, error) -> {
            LOG.errorf("cannot read PriorityClasses (%s); jobs are ordered by their explicit priority until it can",
                    error.getMessage());
            return true;
        });
        informer.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(PriorityClass c) {
                refresh();
            }

            @Override
            public void onUpdate(PriorityClass before, PriorityClass after) {
                refresh();
            }

            @Override
            public void onDelete(PriorityClass c, boolean deletedFinalStateUnknown) {
                refresh();
            }
        });
        try {
            informer.start().toCompletableFuture().get(firstListWait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            LOG.errorf("PriorityClasses not read within %s; ordering by explicit priority until they are", firstListWait);
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
        }
        refresh();
    }

    private synchronized void refresh() {
        Map<String, Integer> values = new HashMap<>();
        String globalDefault = null;
        int globalDefaultValue = Integer.MIN_VALUE;
        for (PriorityClass c : informer.getStore().list()) {
            int value = c.getValue() == null ? 0 : c.getValue();
            values.put(c.getMetadata().getName(), value);
            // Kubernetes allows one globalDefault; if a race left two, the higher value wins, deterministically
            if (Boolean.TRUE.equals(c.getGlobalDefault()) && value >= globalDefaultValue) {
                globalDefault = c.getMetadata().getName();
                globalDefaultValue = value;
            }
        }
        PriorityClasses classes = new PriorityClasses(values, globalDefault);
        if (!classes.equals(scheduler.priorityClasses())) {
            scheduler.replacePriorityClasses(classes);
            LOG.debugf("PriorityClasses in force: %s, globalDefault %s", values, globalDefault);
            onChange.run();
        }
    }

    @PreDestroy
    void stop() {
        if (informer != null) {
            informer.stop();
        }
    }
}
