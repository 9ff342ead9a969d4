package io.kubequeue.operator;

import java.time.Duration;
import java.util.List;
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


import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kubequeue.admission.AdmissionLoop;
import io.kubequeue.admission.QueuingConditions;
import io.kubequeue.config.KubeQueueConfig;
import io.kubequeue.config.SettingsCheck;
import io.kubequeue.config.QueueGroupPlugin;
import io.kubequeue.events.EventRecorder;
import io.kubequeue.job.JobFeed;
import io.kubequeue.job.JobKind;
import io.kubequeue.job.JobPods;
import io.kubequeue.admission.Evicter;
import io.kubequeue.job.JobReconciler;
import io.kubequeue.leader.Leadership;
import io.kubequeue.leader.LeaseProblem;
import io.kubequeue.priority.PriorityClassWatch;
import io.kubequeue.quota.QuotaGroupSource;
import io.kubequeue.quota.elastic.ElasticQuotaTreeSource;
import io.kubequeue.quota.elastic.QuotaTreeStatusWriter;
import io.kubequeue.quota.resourcequota.AdmittedPods;
import io.kubequeue.quota.resourcequota.ResourceQuotaSource;
import io.kubequeue.scheduler.JobKey;
import io.kubequeue.scheduler.QuotaTree;
import io.kubequeue.scheduler.Resources;
import io.kubequeue.scheduler.Scheduler;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;

/**
 * Start-up: state is rebuilt from the cluster, never from memory (docs/behaviour.md §1). Start-up is the list of
 * steps in {@link #steps()}, started in that order and stopped in the reverse order ({@link StartupSteps}):
 *
 * <ol>
 *   <li><b>settings</b>: log the API server, check the settings start-up reads;</li>
 *   <li><b>PriorityClasses</b>: watch them (queue order);</li>
 *   <li><b>LimitRanges and RuntimeClasses</b>: watch them (what a job's pods will request, docs/behaviour.md §2);</li>
 *   <li><b>quota groups</b> of {@code QueueGroupPlugin}: start its source and wait for its first full list; under
 *       the ElasticQuotaTree plugin also the tree's status writer, under the ResourceQuota plugin first the pods of
 *       managed jobs ({@link JobPods}); a tree whose groups set an admission timeout starts that pod watch too;</li>
 *   <li><b>record key</b>: read (or create) the Secret whose key signs admission records and eviction histories
 *       ({@link RecordKeySecret}); every replica, since followers check records too. A gate
 *       ({@link StartupStep#gate}): if it cannot be had at once (RBAC), start-up returns, so that health is served,
 *       the replica reports not ready with the reason (data {@code recordKey}), and the key is tried again with
 *       backoff; the steps below start once it is had. Meanwhile the job feed reads no running or queued job (each
 *       is read by recovery), and nothing is admitted;</li>
 *   <li><b>recovery</b>: with a global admission timeout or reclaim on, start the pod watch first (a job kube-queue
 *       evicted, found suspended, stays charged while its pods are not known to be gone: docs/policies.md, "When a
 *       victim's room is free"); list every job of every kind: each unfinished job carrying an admission record is
 *       charged to its group, each suspended one is queued (queue order puts them back in their original order);
 *       under the ResourceQuota plugin, recount what uses each quota outside the admitted jobs;</li>
 *   <li><b>pods that ran</b>: if the pod watch runs, wait for its first list; then report to the scheduler which
 *       admitted jobs have a pod that ran (only now is every job known), so that admission timeouts are decided from
 *       the start of leading (docs/policies.md, "Admission timeout"), and from then on which jobs' pods went;</li>
 *   <li><b>readiness</b>: report ready;</li>
 *   <li><b>leadership</b>: compete for the Lease; while leading, the admission loop is open.</li>
 * </ol>
 *
 * <p>At shutdown: leadership (drain the admission loop, give up the Lease), then the quota groups (the status
 * writer, then the source); the other steps have nothing to stop here (the PriorityClass and pod informers stop
 * themselves as the container ends). {@link ShutdownDeadline} is armed before all of this, by its own observer.
 */
@Singleton
@Readiness
public class StartupRecovery implements HealthCheck {

    private static final Logger LOG = Logger.getLogger(StartupRecovery.class);
    private static final int RECOVERY_ATTEMPTS = 5;
    /** How long start-up waits for the pods' first list before it goes on without admission timeouts. */
    private static final Duration POD_LIST_WAIT = Duration.ofSeconds(10);

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
    private final JobPods jobPods;
    private final Leadership leadership;
    private final QuotaTreeStatusWriter treeStatus;
    private final Evicter evicter;
    private final RecordKeySecret recordKey;
    /**
     * LimitRange defaults and RuntimeClass overheads (a field, not a constructor argument: the bare test instances
     * that only report never start it).
     */
    @jakarta.inject.Inject
    io.kubequeue.pricing.PodDefaultsWatch podDefaults;
    /** The quota-group source of the plugin in force, once the quota step has made it. */
    private QuotaGroupSource source;
    /** The same source under the ResourceQuota plugin (recounted after recovery and on leading); else null. */
    private ResourceQuotaSource resourceQuotas;
    private volatile StartupSteps running;
    private volatile boolean recovered;

    /** Built by CDI; every argument is a bean of its own (null in a bare test instance, which only reports). */
    public StartupRecovery(KubernetesClient client, KubeQueueConfig config, Scheduler scheduler, JobFeed feed,
                           AdmissionLoop loop, EventRecorder events, Instance<JobKind<?>> kinds,
                           QueuingConditions queuing, PriorityClassWatch priorityClasses, AdmittedPods admittedPods,
                           JobPods jobPods, Leadership leadership, QuotaTreeStatusWriter treeStatus,
                           Evicter evicter, RecordKeySecret recordKey) {
        this.recordKey = recordKey;
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
        this.jobPods = jobPods;
        this.leadership = leadership;
        this.treeStatus = treeStatus;
        this.evicter = evicter;
    }

    /**
     * Start-up, step by step, in the order the list shows; shutdown stops the steps in the reverse order.
     */
    List<StartupStep> steps() {
        boolean underResourceQuota = config.queueGroupPlugin() == QueueGroupPlugin.RESOURCEQUOTA;
        return List.of(
                StartupStep.startOnly("settings", this::checkSettings),
                StartupStep.startOnly("PriorityClasses", this::watchPriorityClasses), // stops itself: @PreDestroy
                StartupStep.startOnly("LimitRanges and RuntimeClasses", this::watchPodDefaults), // @PreDestroy too
                underResourceQuota ? resourceQuotaGroups() : elasticQuotaGroups(),
                StartupStep.gate("record key", () -> recordKey.tryLoad(leadership.namespace())),
                StartupStep.startOnly("recovery", this::recoverJobs),
                StartupStep.startOnly("pods that ran (admission timeouts)", this::reportPodRuns), // stops itself
                StartupStep.startOnly("readiness", () -> recovered = true),
                new StartupStep("leadership", this::compete, this::stopAdmittingAndLeading));
    }

    /**
     * Runs before QOSDK starts the operator (lower priority value first; QOSDK then starts it in the background,
     * {@code quarkus.operator-sdk.async-start}), so no reconcile can interleave with the recovery list: a job that
     * finishes meanwhile is seen finished by its first reconcile, never re-charged by a stale list entry
     * afterwards. Readiness does not wait for the informers of kinds the cluster does not serve. If the record key
     * must be waited for, recovery runs later, beside the reconciles: a job seen finished is still never charged
     * again (the scheduler remembers its uid), and each job's state is the later of its list entry and its events.
     */
    void onStart(@Observes @Priority(Interceptor.Priority.LIBRARY_BEFORE) StartupEvent event) {
        running = new StartupSteps(steps(), Duration.ofSeconds(1), e -> {
            // a step after the record key failed, on the thread that waited for it: end as a failed start-up does
            LOG.errorf(e, "start-up failed after the record key was read: %s", e.getMessage());
            io.quarkus.runtime.Quarkus.asyncExit(1);
        });
        running.start();
    }

    /**
     * Stops the steps that started, in the reverse order: leadership first (stop admitting, let the patches already
     * sent finish, and only then give up the Lease, so that another replica leads at once), then the quota groups.
     * First among the shutdown observers: JOSDK's stop closes the shared client, and a Lease released after that is
     * not released at all (LeaseReleaseIT).
     */
    void onStop(@Observes @Priority(Interceptor.Priority.PLATFORM_BEFORE) ShutdownEvent event) {
        if (running != null) {
            running.stop();
        }
    }

    /** Step "settings": which API server, and the settings start-up reads, checked before anything starts. */
    private void checkSettings() {
        ApiServerTarget.log(client.getConfiguration());
        Set<String> known = new TreeSet<>();
        kinds.forEach(kind -> known.add(kind.kind()));
        SettingsCheck.check(config, known);
    }

    /**
     * Step "LimitRanges and RuntimeClasses": their watch, so that jobs (recovery's first) are priced as the API
     * server will make their pods; a change prices the queued jobs of its namespace again (docs/behaviour.md §2).
     */
    private void watchPodDefaults() {
        podDefaults.start(config.firstListTimeout());
    }

    /** Step "PriorityClasses": their watch, whose changes re-sort the queues and trigger a cycle. */
    private void watchPriorityClasses() {
        priorityClasses.start(config.firstListTimeout(), loop::trigger);
    }

    /**
     * Step "quota groups" under the ResourceQuota plugin: the pods of admitted jobs, then ResourceQuotas. Stops the
     * source at shutdown; AdmittedPods stops itself (@PreDestroy).
     */
    private StartupStep resourceQuotaGroups() {
        return new StartupStep("quota groups (ResourceQuotas and the pods of admitted jobs)", () -> {
            ResourceQuotaSource quotas = new ResourceQuotaSource(client, events, config.firstListTimeout(),
                    admittedPods::usage, new ResourceQuotaSource.OutsideUsage() {
                        @Override
                        public long ticket(String namespace) {
                            return scheduler.externalRecountTicket(namespace);
                        }

                        @Override
                        public void set(String namespace, Resources used, long ticket) {
                            scheduler.setExternalUsage(namespace, used, ticket);
                            // under this plugin a finished job's room opens here, when its pods are recounted
                            loop.triggerAtOnce();
                        }
                    });
            resourceQuotas = quotas;
            scheduler.trackExternalUsage(quotas::recomputeSoon); // pods of a released job stay counted
            admittedPods.start(quotas::recompute); // before the quotas: a pod seen first counts from the quota's list
            source = quotas;
            source.start(this::applyQuotaGroups);
        }, () -> source.stop());
    }

    /** Step "quota groups" under the ElasticQuotaTree plugin: the tree's status writer, then the tree. */
    private StartupStep elasticQuotaGroups() {
        return new StartupStep("quota groups (ElasticQuotaTree and its status)", () -> {
            ElasticQuotaTreeSource trees = new ElasticQuotaTreeSource(client, config.elasticQuota().namespace(), events,
                    config.firstListTimeout());
            treeStatus.follow(trees, leadership::isLeader); // the leader writes the tree's status: kubectl get eqt
            source = trees;
            source.start(this::applyQuotaGroups);
        }, () -> {
            treeStatus.stop();
            source.stop();
        });
    }

    private void applyQuotaGroups(QuotaTree tree) {
        if (tree.nodes().stream().anyMatch(n -> n.admissionTimeout() != null && !n.admissionTimeout().isZero())) {
            jobPods.start(); // once; a group's timeout needs to know which admitted jobs have a pod that ran
        }
        scheduler.replaceTree(tree);
        LOG.infof("quota groups in force: %s", tree.nodes().stream().map(n -> n.name() + " max " + n.max()).toList());
        loop.trigger();
    }

    /** Step "recovery": every job of every kind switched on, then (ResourceQuota) each quota's outside usage. */
    private void recoverJobs() {
        if (scheduler.settings().admissionTimeout() != null || scheduler.settings().reclaim().enabled()) {
            // before the jobs are listed: an evicted job found suspended whose pods are not known to be gone yet
            // (not listed yet) stays charged until they are (docs/policies.md, "When a victim's room is free")
            jobPods.start();
        }
        scheduler.watchPods(jobPods::podsLeft);
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
    }

    /**
     * Step "pods that ran": the pod watch was started by recovery if the global admission timeout or reclaim is on
     * (else if a quota group sets a timeout, when its tree is applied, or never); once it has listed, every admitted job with a pod that ran is
     * reported to the scheduler, which decides admission timeouts only from then on. Not before recovery: a pod
     * whose job is not known yet cannot be traced to it. A watch not listed in time (RBAC, an API server away)
     * delays timeouts, not start-up.
     */
    private void reportPodRuns() {
        // the last check before a timeout is written: a pod may have started since the decision
        evicter.podRuns(jobPods::runs);
        scheduler.writePodRanMarksTo(loop::recordPodRan);
        jobPods.reportRunsTo(new JobPods.RunReport() {
            @Override
            public void podRan(JobKey job) {
                scheduler.podRan(job);
            }

            @Override
            public void podsListed() {
                if (scheduler.podsListed()) {
                    loop.triggerAtOnce(); // a victim whose pods were not known to be gone is free
                }
            }

            @Override
            public void podsChanged(JobKey job) {
                if (scheduler.podsChanged(job)) {
                    loop.triggerAtOnce(); // the last pod of a victim is gone: its preemptor may go
                }
            }
        });
        if (jobPods.started() && !jobPods.awaitFirstList(POD_LIST_WAIT)) {
            LOG.warnf("pods of managed jobs not listed within %s: no admission times out until they are", POD_LIST_WAIT);
        }
    }

    /**
     * Step "leadership": compete for the Lease (or lead at once with leader election off); on leading, open the
     * admission loop and write what was held while following; on losing the Lease, close the loop.
     */
    private void compete() {
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

    /** Stop of "leadership": stop admitting, let the patches already sent finish, then give up the Lease. */
    private void stopAdmittingAndLeading() {
        loop.drain(Duration.ofSeconds(5));
        leadership.stop();
    }

    /**
     * The job as its informer caches it ({@link JobKind#pruned}), which reads the same: what the scheduler and the job
     * directory keep of this read (its uid, resourceVersion, reference) is then the interned strings the cache and
     * every later read share, not this list's own (issue 27: memory per pending job). A job the pruning fails on is
     * fed whole, as the cache keeps it ({@link io.kubequeue.job.PruningItemStore}).
     */
    static <R extends HasMetadata> R asCached(JobKind<R> kind, R job) {
        try {
            return kind.pruned(job);
        } catch (RuntimeException e) {
            return job;
        }
    }

    /**
     * Feeds every job of one kind, listed in pages of {@value JobReconciler#LIST_PAGE}; a failure lists the kind again
     * from the start. A kind the API server does not serve (404: its CRD is not installed) has no
     * admitted jobs to recover and is skipped with one log line; any other failure is retried, then fails
     * start-up, since admitting without knowing what already runs could exceed a quota. A job that cannot be read
     * is skipped and reported at the job ({@link JobFeed#observeOrReport}); the list goes on. A list page that
     * cannot be parsed at all fails as the list does: fabric8 parses a page whole, so it cannot be split into its
     * objects; the page bounds ({@code io.kubequeue.input.JsonBounds}) are set at what a real API server sends.
     */
    private <R extends HasMetadata> int recover(JobKind<R> kind) {
        for (int attempt = 1;; attempt++) {
            try {
                // page by page: one list of every job would hold them all whole at once (15,000 jobs do not fit
                // a small heap); the pages of one list show one version of the cluster, as a single list does
                int n = 0;
                int skipped = 0;
                String next = null;
                do {
                    KubernetesResourceList<R> page = client.resources(kind.type()).inAnyNamespace().list(
                            new ListOptionsBuilder().withLimit(JobReconciler.LIST_PAGE).withContinue(next).build());
                    for (R job : page.getItems()) {
                        // a job that cannot be read is skipped, and reported
                        if (feed.observeOrReport(kind, asCached(kind, job))) {
                            n++;
                        } else {
                            skipped++;
                        }
                    }
                    next = page.getMetadata() == null ? null : page.getMetadata().getContinue();
                } while (next != null && !next.isEmpty());
                if (skipped > 0) {
                    LOG.warnf("recovery skipped %d %s that cannot be read (each has its InvalidJob Warning)", skipped,
                            kind.kind());
                }
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

    /**
     * Ready once start-up recovery is done (DOWN before): from then on this replica serves the read API and
     * metrics; it admits only while it leads. DOWN again while it cannot take part in leader election (its
     * Lease's namespace missing, RBAC), with the reason and the fix as data {@code leaderElection}; while start-up
     * waits for the record key, the reason and the fix are data {@code recordKey}.
     */
    @Override
    public HealthCheckResponse call() {
        // no leadership yet: the check asked before the bean is wired (HealthTest builds one bare)
        Optional<LeaseProblem> lease = leadership == null ? Optional.empty() : leadership.problem();
        HealthCheckResponseBuilder response = HealthCheckResponse.named("kube-queue-recovery")
                .status(recovered && lease.isEmpty()).withData("role", leadership == null ? "starting" : leadership.role());
        lease.ifPresent(p -> response.withData("leaderElection", p.message()));
        if (recordKey != null) {
            recordKey.problem().ifPresent(p -> response.withData("recordKey", p));
        }
        return response.build();
    }
}
