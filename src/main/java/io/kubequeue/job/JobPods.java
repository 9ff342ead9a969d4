package io.kubequeue.job;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import jakarta.annotation.PreDestroy;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;

import org.jboss.logging.Logger;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.kubequeue.scheduler.model.JobKey;

/**
 * The one watch on the pods of managed jobs, shared by the ResourceQuota plugin's accounting
 * ({@code io.kubequeue.quota.resourcequota.AdmittedPods}) and the admission timeout (docs/policies.md, "Admission
 * timeout"): one informer per pod-label key of the enabled kinds ({@link JobKind#podLabelKey()}), not every pod of
 * the cluster, listed in pages of {@value JobReconciler#LIST_PAGE}, caching {@link Pruning#pod} copies
 * (docs/architecture.md, "Informer caches": a pod's env, volumes, images and container statuses are not kept).
 *
 * <p>It starts at most once, when the first user asks ({@link #start()}): the ResourceQuota plugin at start-up, the
 * admission timeout when the global setting is on or a quota group sets one, which a tree may do long after
 * start-up. It stops with the container ({@code @PreDestroy}).
 *
 * <p><b>Runs.</b> A pod has <em>run</em> when its phase is Running, Succeeded or Failed and it is not being deleted
 * (no {@code deletionTimestamp}). Once told where ({@link #reportRunsTo}, after start-up recovery, so that every
 * admitted job is known) and once the first list is in, every pod listed that has run is reported once, then
 * {@link RunReport#podsListed()}; from then on each add or update of a pod that has run is reported, and each pod
 * deleted or finished ({@link RunReport#podsChanged}), for the evicted jobs whose room waits for their pods to go
 * ({@link #podsLeft}). A pod is traced to its job by {@link #jobOf}. It starts before recovery when reclaim or the
 * global admission timeout is on, so that an evicted job found after a restart is known to still have pods.
 */
@Singleton
public class JobPods {

    private static final Logger LOG = Logger.getLogger(JobPods.class);

    /** Where runs are reported: the scheduler ({@code Scheduler#podRan}, {@code Scheduler#podsListed}). */
    public interface RunReport {
        /** A pod of this managed job has run (see the class comment); said again for every change of such a pod. */
        void podRan(JobKey job);

        /** Every pod of the first list that had run has been reported; called once. */
        void podsListed();

        /**
         * A pod of this managed job was deleted or finished (Succeeded, Failed): an evicted job waiting for its pods
         * to go may be free ({@link #podsLeft}).
         */
        default void podsChanged(JobKey job) {
        }
    }

    private final KubernetesClient client;
    private final JobDirectory directory;
    private final JobKindRegistry kinds;
    private final Predicate<String> kindEnabled;
    private final List<ResourceEventHandler<Pod>> handlers = new CopyOnWriteArrayList<>();
    /** The informer of each pod-label key watched. */
    private final Map<String, SharedIndexInformer<Pod>> informers = new java.util.concurrent.ConcurrentHashMap<>();
    private CompletableFuture<Void> firstList;
    private RunReport report;
    private boolean listed;
    private volatile RunReport reporting;
    /** The pod-label keys of every kind, which the cached pods keep; grows as kinds are declared. */
    private final Set<String> podLabelKeys = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /**
     * Built by CDI.
     *
     * @param directory which job a pod belongs to
     * @param kinds     the job kinds, whose pod labels are watched
     * @param feed      which kinds are switched on ({@code kube-queue.disabled-kinds})
     */
    @Inject
    public JobPods(KubernetesClient client, JobDirectory directory, JobKindRegistry kinds, JobFeed feed) {
        this(client, directory, kinds, feed::enabled);
    }

    /**
     * @param kinds       the kinds now, read at {@link #start()} (each enabled kind's pod-label key gets an informer),
     *                    and those declared later, whose pods are watched from their declaration on
     * @param kindEnabled whether a kind (by name, e.g. {@code Job}) is switched on
     */
    public JobPods(KubernetesClient client, JobDirectory directory, JobKindRegistry kinds,
                   Predicate<String> kindEnabled) {
        this.client = client;
        this.directory = directory;
        this.kinds = kinds;
        this.kindEnabled = kindEnabled;
        kinds.whenDeclared(this::watchPodsOf);
    }

    /**
     * Adds a handler of the pods' events (whole pods; the cache holds the copies). A handler added after
     * {@link #start()} sees only the events after it.
     */
    public void addHandler(ResourceEventHandler<Pod> handler) {
        handlers.add(handler);
    }

    /**
     * Starts the informers, once; later calls return the same future. Does not wait: the future completes when every
     * informer has listed, and never if one cannot (RBAC forbids pods, say: each failure is logged, and the informer
     * retries).
     *
     * @return the first list of every informer
     */
    public CompletableFuture<Void> start() {
        CompletableFuture<Void> list;
        synchronized (this) {
            if (firstList != null) {
                return firstList;
            }
            list = startInformers();
            firstList = list;
        }
        list.thenRun(this::listed); // outside the lock: it may report to the scheduler at once
        return list;
    }

    private CompletableFuture<Void> startInformers() {
        Set<String> keys = new TreeSet<>();
        for (JobKind<?> kind : kinds) {
            podLabelKeys.add(kind.podLabelKey());
            if (kindEnabled.test(kind.kind())) {
                keys.add(kind.podLabelKey());
            }
        }
        List<CompletableFuture<Void>> lists = new ArrayList<>();
        for (String key : keys) {
            lists.add(startInformer(key));
        }
        LOG.infof("watching the pods of managed jobs (labels %s)", keys);
        return CompletableFuture.allOf(lists.toArray(CompletableFuture[]::new));
    }

    private CompletableFuture<Void> startInformer(String key) {
        SharedIndexInformer<Pod> informer = client.pods().inAnyNamespace().withLabel(key)
                .withLimit(JobReconciler.LIST_PAGE).runnableInformer(0);
        informer.itemStore(new PruningItemStore<>(pod -> Pruning.pod(pod, podLabelKeys)));
        informer.exceptionHandler((started, error) -> {
            LOG.errorf("cannot watch pods labelled %s (%s); until it can, ResourceQuota usage counts their jobs"
                    + " twice and no admission is undone for a timeout", key, error.getMessage());
            return true;
        });
        informer.addEventHandler(new Fanout());
        informers.put(key, informer);
        return informer.start().toCompletableFuture();
    }

    /**
     * A kind declared at run time ({@link JobKindRegistry#declare}): its pods are watched from now on, by a new
     * informer if no kind watched its label yet. Before {@link #start()}, nothing to do: the start reads every kind.
     */
    synchronized void watchPodsOf(JobKind<?> kind) {
        podLabelKeys.add(kind.podLabelKey());
        if (firstList != null && kindEnabled.test(kind.kind()) && !informers.containsKey(kind.podLabelKey())) {
            startInformer(kind.podLabelKey());
            LOG.infof("watching the pods of %s too (label %s)", kind.kind(), kind.podLabelKey());
        }
    }

    /** Whether {@link #start()} was called. */
    public synchronized boolean started() {
        return firstList != null;
    }

    /**
     * Waits for the informers' first lists, if they are started.
     *
     * @param wait how long at most
     * @return whether every informer has listed (false if not started)
     */
    public boolean awaitFirstList(Duration wait) {
        CompletableFuture<Void> list;
        synchronized (this) {
            list = firstList;
        }
        if (list == null) {
            return false;
        }
        try {
            list.get(wait.toMillis(), TimeUnit.MILLISECONDS);
            listed(); // at once, not when the future's own callback gets to it: a report waiting is made now
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (Exception e) {
            return false;
        }
    }

    /**
     * Reports runs from now on (see the class comment): at once if the first list is in, else when it is. Call it
     * once every job is known (after start-up recovery): a pod of a job not yet known cannot be traced. Before the
     * watch starts it only remembers where to report.
     *
     * @param report where runs go
     */
    public void reportRunsTo(RunReport report) {
        synchronized (this) {
            this.report = report;
        }
        reportListedRuns();
    }

    /**
     * Whether a pod of the job has run and is not being deleted, as the cache holds it now: the last check before an
     * admission that timed out is undone. True while the cache cannot say it has not: before the first list, and
     * while the informer of its kind's pod label is not watching (its connection lost, or stopped), when a pod may
     * have started unseen.
     *
     * @param job the job
     */
    public boolean runs(JobKey job) {
        if (!knowable(job)) {
            return true;
        }
        return inNamespace(job.namespace()).stream().anyMatch(pod -> ran(pod) && jobOf(pod).filter(job::equals).isPresent());
    }

    /**
     * Whether the cache can tell about the job's pods: the informer of its kind's pod-label key has listed and is
     * watching (every informer, if the kind has none of its own). Only that one: a watch that cannot start or is lost
     * for one kind must not leave every other kind's jobs unknowable.
     */
    private boolean knowable(JobKey job) {
        SharedIndexInformer<Pod> informer = kinds.named(job.kind()).map(k -> informers.get(k.podLabelKey()))
                .orElse(null);
        if (informer != null) {
            return informer.hasSynced() && informer.isWatching();
        }
        synchronized (this) {
            if (!listed) {
                return false;
            }
        }
        return informers.values().stream().allMatch(SharedIndexInformer::isWatching);
    }

    /**
     * Whether a pod of the job is left: not Succeeded or Failed, whether it is being deleted or not (a pod that
     * terminates still holds its node's resources until its containers stop, up to its
     * {@code terminationGracePeriodSeconds}). False if the watch was never started (nothing to tell: the job's status
     * alone does); true while it cannot tell, before the first list and while its kind's informer is not watching. Reads the
     * cache only: the scheduler asks under its lock ({@code Scheduler#watchPods}).
     *
     * @param job the job
     */
    public boolean podsLeft(JobKey job) {
        synchronized (this) {
            if (firstList == null) {
                return false;
            }
        }
        if (!knowable(job)) {
            return true;
        }
        return inNamespace(job.namespace()).stream()
                .anyMatch(pod -> !finished(pod) && jobOf(pod).filter(job::equals).isPresent());
    }

    /** Succeeded or Failed: its containers have stopped. */
    static boolean finished(Pod pod) {
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        return "Succeeded".equals(phase) || "Failed".equals(phase);
    }

    /** The cached copies of the namespace's pods of managed jobs (every pod-label key); empty before the start. */
    public List<Pod> inNamespace(String namespace) {
        List<Pod> pods = new ArrayList<>();
        for (SharedIndexInformer<Pod> informer : informers.values()) {
            pods.addAll(informer.getIndexer().byIndex(Cache.NAMESPACE_INDEX, namespace));
        }
        return pods;
    }

    /**
     * The managed job a pod belongs to: for each kind whose pod label the pod carries, the job of that kind the pod
     * names ({@link JobKind#jobNameOfPod}) in the pod's namespace, if the directory knows it, the label's value is the
     * one that job gives its pods ({@link JobKind#podLabelValue(String, String)}), and the pod's controlling owner is
     * that job (same uid). Labels carry a job's name, which a job of another kind, or a deleted namesake, may share; a
     * pod without a controlling owner is taken at its label.
     */
    public Optional<JobKey> jobOf(Pod pod) {
        ObjectMeta meta = pod.getMetadata();
        Map<String, String> labels = meta.getLabels() == null ? Map.of() : meta.getLabels();
        for (JobKind<?> kind : kinds.all()) { // a snapshot, changed as kinds are declared
            String value = labels.get(kind.podLabelKey());
            String name = value == null ? null : kind.jobNameOfPod(meta);
            if (name == null) {
                continue;
            }
            JobKey key = new JobKey(kind.kind(), meta.getNamespace(), name);
            Optional<JobDirectory.Entry> entry = directory.get(key);
            if (entry.isPresent() && value.equals(kind.podLabelValue(name, entry.get().uid()))
                    && (!kind.ownsItsPods() || ownedBy(pod, entry.get().uid()))) {
                return Optional.of(directory.known(key));
            }
        }
        return Optional.empty();
    }

    private static boolean ownedBy(Pod pod, String jobUid) {
        if (jobUid == null || pod.getMetadata().getOwnerReferences() == null) {
            return true;
        }
        return pod.getMetadata().getOwnerReferences().stream()
                .filter(o -> Boolean.TRUE.equals(o.getController()))
                .allMatch(o -> jobUid.equals(o.getUid()));
    }

    /** Running, Succeeded or Failed, and not being deleted (docs/policies.md, "Admission timeout"). */
    static boolean ran(Pod pod) {
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        return pod.getMetadata().getDeletionTimestamp() == null
                && ("Running".equals(phase) || "Succeeded".equals(phase) || "Failed".equals(phase));
    }

    /** The first list is in; reports the runs if where to is known (again: a no-op). */
    private void listed() {
        synchronized (this) {
            listed = true;
        }
        reportListedRuns();
    }

    /** Once both the first list is in and the report is known: every listed pod that ran, then podsListed. */
    private void reportListedRuns() {
        RunReport to;
        synchronized (this) {
            if (!listed || report == null || reporting != null) {
                return;
            }
            to = report;
            reporting = to; // the handlers report from here on; the stores already hold every pod they were told of
        }
        int ran = 0;
        for (SharedIndexInformer<Pod> informer : informers.values()) {
            for (Pod pod : informer.getStore().list()) {
                if (ran(pod)) {
                    Optional<JobKey> job = jobOf(pod);
                    if (job.isPresent()) {
                        to.podRan(job.get());
                        ran++;
                    }
                }
            }
        }
        to.podsListed();
        LOG.infof("pods listed: %d of managed jobs have run; admission timeouts are decided from now on", ran);
    }

    private void reportIfRan(Pod pod) {
        RunReport to = reporting;
        if (to != null && ran(pod)) {
            jobOf(pod).ifPresent(to::podRan);
        }
    }

    /** A pod gone or finished: its job may have none left (see {@link RunReport#podsChanged}). */
    private void reportGone(Pod pod) {
        RunReport to = reporting;
        if (to != null) {
            jobOf(pod).ifPresent(to::podsChanged);
        }
    }

    @PreDestroy
    void stop() {
        informers.values().forEach(SharedIndexInformer::stop);
    }

    /** Reports runs, then hands each event to every handler added. */
    private final class Fanout implements ResourceEventHandler<Pod> {
        @Override
        public void onAdd(Pod pod) {
            reportIfRan(pod);
            handlers.forEach(h -> h.onAdd(pod));
        }

        @Override
        public void onUpdate(Pod oldPod, Pod newPod) {
            reportIfRan(newPod);
            if (finished(newPod) && !finished(oldPod)) {
                reportGone(newPod);
            }
            handlers.forEach(h -> h.onUpdate(oldPod, newPod));
        }

        @Override
        public void onDelete(Pod pod, boolean deletedFinalStateUnknown) {
            reportGone(pod);
            handlers.forEach(h -> h.onDelete(pod, deletedFinalStateUnknown));
        }
    }
}
