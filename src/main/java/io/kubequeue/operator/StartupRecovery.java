package io.kubequeue.operator;

import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

import jakarta.annotation.Priority;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Singleton;
import jakarta.interceptor.Interceptor;

import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;
import org.jboss.logging.Logger;

import com.fasterxml.jackson.databind.JsonNode;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kubequeue.admission.AdmissionLoop;
import io.kubequeue.admission.QueuingConditions;
import io.kubequeue.config.KubeQueueConfig;
import io.kubequeue.config.QueueGroupPlugin;
import io.kubequeue.events.EventRecorder;
import io.kubequeue.quota.resourcequota.AdmittedPods;
import io.kubequeue.job.JobFeed;
import io.kubequeue.job.JobKind;
import io.kubequeue.job.JobReconciler;
import io.kubequeue.priority.PriorityClassWatch;
import io.kubequeue.leader.LeaseProblem;
import io.kubequeue.leader.Leadership;
import io.kubequeue.quota.elastic.ElasticQuotaTreeSource;
import io.kubequeue.quota.QuotaGroupSource;
import io.kubequeue.quota.elastic.QuotaTreeStatusWriter;
import io.kubequeue.quota.resourcequota.ResourceQuotaSource;
import io.kubequeue.scheduler.Scheduler;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;

/**
 * Start-up: state is rebuilt from the cluster, never from memory (docs/behaviour.md §1).
 *
 * <ol>
 *   <li>watch PriorityClasses (queue order) and, under the ResourceQuota plugin, the pods of managed kinds;</li>
 *   <li>start the quota-group source of {@code QueueGroupPlugin} and wait for its first full list;</li>
 *   <li>list every job of every kind: each unfinished job carrying an admission record is charged to its
 *       group, each suspended one is queued (queue order puts them back in their original order);</li>
 *   <li>under the ResourceQuota plugin, recount what uses each quota outside the admitted jobs;</li>
 *   <li>only then open the admission loop, and report ready.</li>
 * </ol>
 */
@Singleton
@Readiness
public class StartupRecovery implements HealthCheck {

    private static final Logger LOG = Logger.getLogger(StartupRecovery.class);
    private static final int RECOVERY_ATTEMPTS = 5;

    private final KubernetesClient client;
    private final KubeQueueConfig config;
    private final Scheduler scheduler;
    private final JobFeed feed;
    private final AdmissionLoop loop;
    private final EventRecorder events;
    private final Instance<JobKind<?>> kinds;
    private final QueuingConditions queuing;
    private final PriorityClassWatch priorityClasses;
    private final AdmittedPods admittedPods;
    private final Leadership leadership;
    private final QuotaTreeStatusWriter treeStatus;
    private QuotaGroupSource source;
    private volatile boolean recovered;

    public StartupRecovery(KubernetesClient client, KubeQueueConfig config, Scheduler scheduler, JobFeed feed,
                           AdmissionLoop loop, EventRecorder events, Instance<JobKind<?>> kinds,
                           QueuingConditions queuing, PriorityClassWatch priorityClasses, AdmittedPods admittedPods,
                           Leadership leadership, QuotaTreeStatusWriter treeStatus) {
        this.client = client;
        this.config = config;
        this.scheduler = scheduler;
        this.feed = feed;
        this.loop = loop;
        this.events = events;
        this.kinds = kinds;
        this.queuing = queuing;
        this.priorityClasses = priorityClasses;
        this.admittedPods = admittedPods;
        this.leadership = leadership;
        this.treeStatus = treeStatus;
    }

    /**
     * Runs before QOSDK starts the operator (lower priority value first; QOSDK then starts it in the background,
     * {@code quarkus.operator-sdk.async-start}), so no reconcile can interleave with the recovery list: a job that
     * finishes meanwhile is seen finished by its first reconcile, never re-charged by a stale list entry
     * afterwards. Readiness does not wait for the informers of kinds the cluster does not serve.
     */
    void onStart(@Observes @Priority(Interceptor.Priority.LIBRARY_BEFORE) StartupEvent event) {
        ApiServerTarget.log(client.getConfiguration());
        checkDisabledKinds();
        if (config.firstListTimeout().isNegative()) {
            throw new IllegalArgumentException("kube-queue.first-list-timeout: must not be negative ("
                    + config.firstListTimeout() + ")");
        }
        feed.onChange(loop::trigger);
        feed.onRelease(loop::triggerAtOnce);
        feed.onQueued(this::showQueued);
        feed.onStartedOutside(loop::recordStartedOutside);
        feed.onUnconfirmedCopy(loop::recheckNow);
        priorityClasses.start(config.firstListTimeout(), loop::trigger);
        ResourceQuotaSource resourceQuotas = null;
        if (config.queueGroupPlugin() == QueueGroupPlugin.RESOURCEQUOTA) {
            resourceQuotas = new ResourceQuotaSource(client, events, config.firstListTimeout(), admittedPods::usage,
                    new ResourceQuotaSource.OutsideUsage() {
                        @Override
                        public long ticket(String namespace) {
                            return scheduler.externalRecountTicket(namespace);
                        }

                        @Override
                        public void set(String namespace, io.kubequeue.scheduler.Resources used, long ticket) {
                            scheduler.setExternalUsage(namespace, used, ticket);
                            // under this plugin a finished job's room opens here, when its pods are recounted
                            loop.triggerAtOnce();
                        }
                    });
            ResourceQuotaSource quotas = resourceQuotas;
            scheduler.trackExternalUsage(quotas::recomputeSoon); // pods of a released job stay counted
            admittedPods.start(quotas::recompute); // before the quotas: a pod seen first counts from the quota's list
            source = resourceQuotas;
        } else {
            ElasticQuotaTreeSource trees = new ElasticQuotaTreeSource(client, config.elasticQuota().namespace(), events,
                    config.firstListTimeout());
            treeStatus.follow(trees, leadership::isLeader); // the leader writes the tree's status: kubectl get eqt
            source = trees;
        }
        source.start(tree -> {
            scheduler.replaceTree(tree);
            LOG.infof("quota groups in force: %s", tree.nodes().stream().map(n -> n.name() + " max " + n.max()).toList());
            loop.trigger();
        });
        int jobs = 0;
        for (JobKind<?> kind : kinds) {
            if (feed.enabled(kind.kind())) {
                jobs += recover(kind);
            } else {
                LOG.infof("%s %s switched off by kube-queue.disabled-kinds: left alone", kind.kind(),
                        HasMetadata.getApiVersion(kind.type()));
            }
        }
        if (resourceQuotas != null) {
            resourceQuotas.recomputeAll(); // the admitted jobs are known now: their pods are counted once
        }
        long admitted = scheduler.jobs().stream().filter(j -> j.state() == Scheduler.State.ADMITTED).count();
        LOG.infof("recovered %d jobs from the cluster (%d admitted and charged)", jobs, admitted);
        recovered = true;
        ResourceQuotaSource quotas = resourceQuotas;
        // Every replica keeps its scheduler current from the cluster (the list above, then the informers), so a
        // replica that starts to lead already knows what the old leader admitted: the old one stopped writing at
        // its renew deadline, before its Lease expired, and its last writes have reached our informers. A
        // re-list here could feed copies older than what the reconcilers have seen since, so there is none.
        leadership.start(() -> {
            if (quotas != null) {
                quotas.recomputeAll();
            }
            loop.openIf(leadership::isLeader);
            queuing.writeDeferred(); // jobs queued while this replica followed show Queuing too
            events.writeDeferred(); // and bad input seen meanwhile gets its Warning
        }, loop::close);
    }

    /**
     * Feeds every job of one kind, listed in pages of {@value JobReconciler#LIST_PAGE}; a failure lists the kind again
     * from the start. A kind the API server does not serve (404: its CRD is not installed) has no
     * admitted jobs to recover and is skipped with one log line; any other failure is retried, then fails
     * start-up, since admitting without knowing what already runs could exceed a quota.
     */
    private <R extends HasMetadata> int recover(JobKind<R> kind) {
        for (int attempt = 1;; attempt++) {
            try {
                // page by page: one list of every job would hold them all whole at once (15,000 jobs do not fit
                // a small heap); the pages of one list show one version of the cluster, as a single list does
                int n = 0;
                String next = null;
                do {
                    KubernetesResourceList<R> page = client.resources(kind.type()).inAnyNamespace().list(
                            new ListOptionsBuilder().withLimit(JobReconciler.LIST_PAGE).withContinue(next).build());
                    for (R job : page.getItems()) {
                        feed.observe(kind, job);
                        n++;
                    }
                    next = page.getMetadata() == null ? null : page.getMetadata().getContinue();
                } while (next != null && !next.isEmpty());
                return n;
            } catch (KubernetesClientException e) {
                if (e.getCode() == 404) {
                    LOG.warnf("%s %s is not served (CRD not installed): left out, and picked up without a restart"
                            + " once its CRD is installed", kind.kind(), HasMetadata.getApiVersion(kind.type()));
                    return 0;
                }
                if (attempt == RECOVERY_ATTEMPTS) {
                    throw new IllegalStateException("cannot list " + kind.kind() + " to recover admitted jobs", e);
                }
                LOG.warnf("listing %s failed (%s); retrying", kind.kind(), e.getMessage());
                sleep(Duration.ofSeconds(attempt));
            }
        }
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during recovery", e);
        }
    }

    /** @throws IllegalArgumentException naming the valid kinds if {@code kube-queue.disabled-kinds} names another */
    private void checkDisabledKinds() {
        Set<String> known = new TreeSet<>();
        kinds.forEach(kind -> known.add(kind.kind()));
        for (String kind : config.disabledKindNames()) {
            if (!known.contains(kind)) {
                throw new IllegalArgumentException("kube-queue.disabled-kinds: unknown kind '" + kind
                        + "'; valid kinds: " + String.join(", ", known));
            }
        }
    }

    private <R extends CustomResource<JsonNode, JsonNode>> void showQueued(JobFeed.Queued<R> queued) {
        queuing.queued(queued.kind(), queued.job());
    }

    /**
     * Stops admitting, lets the patches already sent finish, and only then gives up the Lease, so that another
     * replica leads at once. First among the shutdown observers: JOSDK's stop closes the shared client, and a
     * Lease released after that is not released at all (LeaseReleaseIT).
     */
    void onStop(@Observes @Priority(Interceptor.Priority.PLATFORM_BEFORE) ShutdownEvent event) {
        loop.drain(Duration.ofSeconds(5));
        leadership.stop();
        treeStatus.stop();
        if (source != null) {
            source.stop();
        }
    }

    /**
     * Ready once start-up recovery is done (DOWN before): from then on this replica serves the read API and
     * metrics; it admits only while it leads. DOWN again while it cannot take part in leader election (its
     * Lease's namespace missing, RBAC), with the reason and the fix as data {@code leaderElection}.
     */
    @Override
    public HealthCheckResponse call() {
        // no leadership yet: the check asked before the bean is wired (HealthTest builds one bare)
        Optional<LeaseProblem> lease = leadership == null ? Optional.empty() : leadership.problem();
        HealthCheckResponseBuilder response = HealthCheckResponse.named("kube-queue-recovery")
                .status(recovered && lease.isEmpty()).withData("role", leadership == null ? "starting" : leadership.role());
        lease.ifPresent(p -> response.withData("leaderElection", p.message()));
        return response.build();
    }
}
