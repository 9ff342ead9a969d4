package io.kubequeue.operator;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import jakarta.annotation.Priority;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import jakarta.interceptor.Interceptor;

import org.eclipse.microprofile.health.Readiness;
import org.jboss.logging.Logger;


import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubequeue.admission.AdmissionLoop;
import io.kubequeue.admission.QueuingConditions;
import io.kubequeue.config.KubeQueueConfig;
import io.kubequeue.config.SettingsCheck;
import io.kubequeue.events.EventRecorder;
import io.kubequeue.job.JobFeed;
import io.kubequeue.job.JobKindRegistry;
import io.kubequeue.leader.Leadership;
import io.kubequeue.priority.PriorityClassWatch;
import io.kubequeue.quota.QuotaPlugin;
import io.kubequeue.scheduler.Scheduler;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.scheduler.model.QuotaTree;
import io.quarkus.arc.All;
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
 *   <li><b>quota groups</b>: the {@link QuotaPlugin} bean that {@code QueueGroupPlugin} selects starts what it
 *       brings and waits for its first full list (the ElasticQuotaTree plugin also the tree's status writer, the
 *       ResourceQuota plugin first the pods of managed jobs); a tree whose groups set an admission timeout starts the
 *       pod watch ({@link PodRunReporting}) too;</li>
 *   <li><b>record key</b>: read (or create) the Secret whose key signs admission records and eviction histories
 *       ({@link RecordKeySecret}); every replica, since followers check records too. A gate
 *       ({@link StartupStep#gate}): if it cannot be had at once (RBAC), start-up returns, so that health is served,
 *       the replica reports not ready with the reason (data {@code recordKey}), and the key is tried again with
 *       backoff; the steps below start once it is had. Meanwhile the job feed reads no running or queued job (each
 *       is read by recovery), and nothing is admitted;</li>
 *   <li><b>declared kinds</b>: read every {@code QueuedKind} and register the kinds in force
 *       ({@link io.kubequeue.job.declared.DeclaredKinds#loadAll}), so that recovery lists their jobs too;</li>
 *   <li><b>recovery</b>: with a global admission timeout or reclaim on, start the pod watch first (a job kube-queue
 *       evicted, found suspended, stays charged while its pods are not known to be gone: docs/policies.md, "When a
 *       victim's room is free"); list every job of every kind ({@link Recovery}); then the quota plugin counts again
 *       what it counts beside the admitted jobs ({@link QuotaPlugin#admittedJobsKnown});</li>
 *   <li><b>watches of declared kinds</b>: start them (their first list reads every job again, as the built-in kinds'
 *       informers do);</li>
 *   <li><b>pods that ran</b>: if the pod watch runs, wait for its first list; then report to the scheduler which
 *       admitted jobs have a pod that ran (only now is every job known), so that admission timeouts are decided from
 *       the start of leading (docs/policies.md, "Admission timeout"), and from then on which jobs' pods went;</li>
 *   <li><b>HTTPS endpoint</b>: with {@code kube-queue.serving.enabled}, the visibility API and the webhook start
 *       listening as soon as their certificate is had ({@link io.kubequeue.serving.HttpsEndpoint}; never waited for:
 *       a certificate that cannot be had is tried again every minute), so the port listens by the time the Service
 *       routes to a ready pod;</li>
 *   <li><b>readiness</b>: report ready ({@link RecoveryReadiness});</li>
 *   <li><b>leadership</b>: compete for the Lease; while leading, the admission loop is open.</li>
 * </ol>
 *
 * <p>At shutdown: leadership (drain the admission loop, give up the Lease), then the quota groups (the plugin's
 * {@link QuotaPlugin#stop}); the other steps have nothing to stop here (the PriorityClass and pod informers stop
 * themselves as the container ends). {@link ShutdownDeadline} is armed before all of this, by its own observer.
 */
@Singleton
public class StartupRecovery {

    private static final Logger LOG = Logger.getLogger(StartupRecovery.class);

    private final KubernetesClient client;
    private final KubeQueueConfig config;
    private final Scheduler scheduler;
    private final JobFeed feed;
    private final AdmissionLoop loop;
    private final EventRecorder events;
    private final JobKindRegistry kinds;
    private final QueuingConditions queuing;
    private final PriorityClassWatch priorityClasses;
    private final List<QuotaPlugin> plugins;
    private final PodRunReporting podRuns;
    private final Leadership leadership;
    private final RecordKeySecret recordKey;
    private final RecoveryReadiness readiness;
    /**
     * LimitRange defaults and RuntimeClass overheads (a field, not a constructor argument: the bare test instances
     * that only report never start it).
     */
    @jakarta.inject.Inject
    io.kubequeue.pricing.PodDefaultsWatch podDefaults;
    /** The HTTPS port of the visibility API and the webhook (a field, as {@link #podDefaults}). */
    @jakarta.inject.Inject
    io.kubequeue.serving.HttpsEndpoint https;
    /**
     * The kinds declared by QueuedKinds, loaded before the recovery list so that it lists their jobs too (a field, as
     * {@link #podDefaults}).
     */
    @jakarta.inject.Inject
    io.kubequeue.job.declared.DeclaredKinds declaredKinds;
    /** The quota plugin in force ({@code QueueGroupPlugin}), chosen when the steps are made. */
    private QuotaPlugin plugin;
    private volatile StartupSteps running;

    /** Built by CDI; every argument is a bean of its own (null in a bare test instance, which only reports). */
    public StartupRecovery(KubernetesClient client, KubeQueueConfig config, Scheduler scheduler, JobFeed feed,
                           AdmissionLoop loop, EventRecorder events, JobKindRegistry kinds,
                           QueuingConditions queuing, PriorityClassWatch priorityClasses,
                           @All List<QuotaPlugin> plugins, PodRunReporting podRuns, Leadership leadership,
                           RecordKeySecret recordKey, @Readiness RecoveryReadiness readiness) {
        this.recordKey = recordKey;
        this.readiness = readiness;
        this.client = client;
        this.config = config;
        this.scheduler = scheduler;
        this.feed = feed;
        this.loop = loop;
        this.events = events;
        this.kinds = kinds;
        this.queuing = queuing;
        this.priorityClasses = priorityClasses;
        this.plugins = plugins;
        this.podRuns = podRuns;
        this.leadership = leadership;
    }

    /**
     * Start-up, step by step, in the order the list shows; shutdown stops the steps in the reverse order.
     */
    List<StartupStep> steps() {
        plugin = QuotaPlugin.select(plugins, config.queueGroupPlugin());
        return List.of(
                StartupStep.startOnly("settings", this::checkSettings),
                StartupStep.startOnly("PriorityClasses", this::watchPriorityClasses), // stops itself: @PreDestroy
                StartupStep.startOnly("LimitRanges and RuntimeClasses", this::watchPodDefaults), // @PreDestroy too
                new StartupStep(plugin.stepName(), () -> plugin.start(this::applyQuotaGroups, () -> loop.triggerAtOnce()),
                        plugin::stop),
                StartupStep.gate("record key", () -> recordKey.tryLoad(leadership.namespace())),
                StartupStep.startOnly("declared kinds (QueuedKinds)", () -> {
                    if (declaredKinds != null) {
                        declaredKinds.loadAll();
                    }
                }),
                StartupStep.startOnly("recovery", this::recoverJobs),
                StartupStep.startOnly("watches of declared kinds", () -> {
                    if (declaredKinds != null) {
                        declaredKinds.watchLoaded();
                    }
                }),
                StartupStep.startOnly("pods that ran (admission timeouts)", () -> podRuns.report()), // stops itself
                new StartupStep("HTTPS endpoint (visibility API, webhook)", () -> {
                    if (https != null) {
                        https.start();
                    }
                }, () -> {
                    if (https != null) {
                        https.stop();
                    }
                }),
                StartupStep.startOnly("readiness", () -> readiness.recovered()),
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

    private void applyQuotaGroups(QuotaTree tree) {
        podRuns.watchPodsIfTimedOutIn(tree);
        scheduler.replaceTree(tree);
        LOG.infof("quota groups in force: %s", tree.nodes().stream().map(n -> n.name() + " max " + n.max()).toList());
        loop.trigger();
    }

    /** Step "recovery": every job of every kind switched on, then (ResourceQuota) each quota's outside usage. */
    private void recoverJobs() {
        podRuns.beforeRecovery();
        int jobs = new Recovery(client, feed).recoverAll(kinds);
        plugin.admittedJobsKnown(); // e.g. ResourceQuotas: the admitted jobs' pods are counted once
        long admitted = scheduler.jobs().stream().filter(j -> j.state() == JobState.ADMITTED).count();
        LOG.infof("recovered %d jobs from the cluster (%d admitted and charged)", jobs, admitted);
    }

    /**
     * Step "leadership": compete for the Lease (or lead at once with leader election off); on leading, open the
     * admission loop and write what was held while following; on losing the Lease, close the loop.
     */
    private void compete() {
        // Every replica keeps its scheduler current from the cluster (the list above, then the informers), so a
        // replica that starts to lead already knows what the old leader admitted: the old one stopped writing at
        // its renew deadline, before its Lease expired, and its last writes have reached our informers. A
        // re-list here could feed copies older than what the reconcilers have seen since, so there is none.
        leadership.start(() -> {
            plugin.admittedJobsKnown();
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

}
