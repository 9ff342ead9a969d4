package io.kubequeue.job;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;

import jakarta.inject.Singleton;

import org.jboss.logging.Logger;

import com.fasterxml.jackson.databind.JsonNode;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.CustomResource;
import io.kubequeue.collections.BoundedMaps;
import io.kubequeue.config.KubeQueueConfig;
import io.kubequeue.events.EventRecorder;
import io.kubequeue.input.InvalidJobException;
import io.kubequeue.pricing.PodDefaultsSource;
import io.kubequeue.scheduler.JobIntake;
import io.kubequeue.scheduler.Scheduler;
import io.kubequeue.scheduler.model.Admission;
import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.EvictionMarks;
import io.kubequeue.scheduler.model.FinishedRun;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobObservation.Phase;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.scheduler.model.JobStatus;
import io.kubequeue.scheduler.model.Observed;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.scheduler.model.RunTimeHints;
import io.kubequeue.scheduler.model.Unreadable;

/**
 * Turns a job of any kind into a {@link JobObservation} and feeds the scheduler; every reconciler calls it,
 * and so does start-up recovery. Idempotent: the same object twice changes nothing.
 *
 * <p>A job whose request cannot be read gets a Warning event naming the field and stays suspended; it is
 * taken out of the queue (not lost: the cluster still holds it, and the next change to it is read again). An
 * eviction annotation that does not read gets one Warning event ({@code InvalidEvictionMark}) and is read as
 * absent; the job is observed all the same.
 *
 * <p>The admission record and the eviction annotations are read only if kube-queue wrote them
 * ({@link RecordSignatures}, docs/security.md "How admission records are trusted"): a set whose signature does not
 * verify gets one Warning event ({@code UntrustedRecord}) and is read as absent; a running job that carries such a
 * record is charged as started outside kube-queue in its own group, and asked to have kube-queue's own record
 * written ({@link FeedEffects#startedOutside}). Before the record key is loaded, running and queued jobs are not read
 * at all
 * (start-up recovery reads them once it is).
 *
 * <p>For the start-time estimates (issue 30) each observation of a queued or admitted job carries what the job says
 * of its run time ({@link #runTime}: the annotation {@link Annotations#EXPECTED_DURATION} and its kind's
 * {@code activeDeadlineSeconds}), and each finished job that kube-queue admitted is learnt as a run ({@link #learn}).
 * Neither changes a decision; a bad expected duration gets one Warning event ({@code InvalidExpectedDuration}).
 */
@Singleton
public class JobFeed {

    private static final Logger LOG = Logger.getLogger(JobFeed.class);

    private final JobIntake scheduler;
    private final PodDefaultsSource pricing;
    private final RecordSignatures signatures;
    private final JobDirectory directory;
    private final EventRecorder events;
    private final Set<String> disabledKinds;
    private final Set<String> watchedNamespaces;
    private final Set<String> chargeUnsuspendedIn;
    /** Where the feed's effects go: cycles, records, Queued events, the Queuing condition. */
    private final FeedEffects effects;
    /** Suspended jobs whose request cannot be read, left out of the queue until fixed. */
    private final Set<JobKey> invalid = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** Sees each observation before the scheduler does (tests: the scheduler does not give them back). */
    private volatile Consumer<JobObservation> onObservation = o -> {
    };
    /** Eviction annotation values already reported as unreadable ("key annotation value"): one event each. */
    private final Map<String, Boolean> reportedMarks = BoundedMaps.keepingNewest(10_000);
    /** Expected durations already reported as unreadable ("key uid value"): one event each. */
    private final Map<String, Boolean> reportedDurations = BoundedMaps.keepingNewest(10_000);
    /** Untrusted signed sets already reported (key, uid, digest of values and signature): one event each. */
    private final Map<String, Boolean> reportedUntrusted = BoundedMaps.keepingNewest(10_000);

    /**
     * A job seen queued whose kind shows it as condition {@code Queuing=True} and that does not show it yet.
     *
     * @param kind the job's kind
     * @param job  the job as seen
     */
    public record Queued<R extends CustomResource<JsonNode, JsonNode>>(ShowsQueuingCondition<R> kind, R job) {
    }

    /**
     * A job running without kube-queue's admission that has just been charged to its group.
     *
     * @param charge the charge, as an admission of that job's uid (its request, written in the record so a restart charges at least that; wait unused)
     * @param how    how it came to run, for the Warning event (e.g. "its suspend mark was removed by hand")
     * @param told   whether the job already got its Warning event (an {@code UntrustedRecord} one): then writing the
     *               record adds none
     */
    public record StartedOutside(Admission charge, String how, boolean told) {

        /** A charge whose Warning event is the record write's ({@code StartedOutsideQueue}). */
        public StartedOutside(Admission charge, String how) {
            this(charge, how, false);
        }
    }

    /**
     * A feed that prices templates as written, without LimitRanges or RuntimeClasses, whose effects go nowhere and
     * which writes Queued events at once (unit tests).
     */
    public JobFeed(JobIntake scheduler, JobDirectory directory, EventRecorder events, KubeQueueConfig config,
                   RecordSignatures signatures) {
        this(scheduler, directory, events, config, signatures, FeedEffects.NONE);
    }

    /** A feed that prices templates as written, with these effects (unit tests). */
    public JobFeed(JobIntake scheduler, JobDirectory directory, EventRecorder events, KubeQueueConfig config,
                   RecordSignatures signatures, FeedEffects effects) {
        this(scheduler, directory, events, config, signatures, PodDefaultsSource.NONE, effects);
    }

    /**
     * @param pricing what each namespace's new pods get from the admission plugins (LimitRange defaults, RuntimeClass
     *                overhead): applied to a job's pod templates before its request is counted (docs/behaviour.md §2)
     * @param effects where its effects go ({@link FeedEffects}; in the operator the admission side's)
     */
    @jakarta.inject.Inject
    public JobFeed(JobIntake scheduler, JobDirectory directory, EventRecorder events, KubeQueueConfig config,
                   RecordSignatures signatures, PodDefaultsSource pricing, FeedEffects effects) {
        this.effects = effects;
        this.pricing = pricing;
        this.signatures = signatures;
        this.scheduler = scheduler;
        this.directory = directory;
        this.events = events;
        this.disabledKinds = config.disabledKindNames();
        this.watchedNamespaces = config.watchedNamespaceNames();
        this.chargeUnsuspendedIn = config.chargeUnsuspendedInNames();
    }

    /**
     * Whether the job's controller holds it itself: a JobSet's Jobs, an MPIJob's launcher Job. Their owner is charged
     * (or not) for them; charging them too would count their pods twice. See {@link #heldByController}.
     */
    static boolean ownedByAnotherController(HasMetadata job) {
        List<io.fabric8.kubernetes.api.model.OwnerReference> owners = job.getMetadata().getOwnerReferences();
        return owners != null && owners.stream().anyMatch(o -> Boolean.TRUE.equals(o.getController())
                && heldByController(job.getMetadata().getName(), o.getApiVersion(), o.getKind(), o.getName()));
    }

    /**
     * Whether a job's controller (its owner reference with {@code controller: true}) is one that holds and releases
     * the job itself, so that kube-queue leaves the job to it: a JobSet ({@code jobset.x-k8s.io}) for its Jobs, and an
     * MPIJob ({@code kubeflow.org}) for its launcher, the Job mpi-operator names {@code <mpijob>-launcher} and
     * suspends with the MPIJob. A tenant writes the owner references of the jobs they create, so any other controller
     * (their ConfigMap, a CronJob, their MPIJob for a job that is not its launcher) holds nothing, and the job is
     * kube-queue's as if it had no owner.
     *
     * @param jobName    the job's name
     * @param apiVersion the controller's {@code apiVersion} ({@code group/version}); null if absent
     * @param kind       the controller's kind; null if absent
     * @param name       the controller's name; null if absent
     */
    public static boolean heldByController(String jobName, String apiVersion, String kind, String name) {
        if (apiVersion == null || kind == null) {
            return false;
        }
        if ("JobSet".equals(kind) && apiVersion.startsWith("jobset.x-k8s.io/")) {
            return true;
        }
        return "MPIJob".equals(kind) && apiVersion.startsWith("kubeflow.org/") && name != null && !name.isEmpty()
                && (name + "-launcher").equals(jobName);
    }

    /**
     * Whether a job of this namespace that runs without ever having been queued is charged all the same
     * ({@code kube-queue.charge-unsuspended-in}: the namespace named, or {@code *} and a quota group lists it).
     */
    public boolean chargesUnsuspended(String namespace) {
        return chargeUnsuspendedIn.contains(namespace) || chargeUnsuspendedIn.contains(KubeQueueConfig.EVERY_QUOTA_GROUP)
                && scheduler.tree().lists(namespace);
    }

    /** Whether kube-queue manages jobs in this namespace ({@code kube-queue.watch-namespaces} unset or naming it). */
    public boolean watches(String namespace) {
        return watchedNamespaces.isEmpty() || watchedNamespaces.contains(namespace);
    }

    /** The namespaces kube-queue manages; empty: every namespace. */
    public Set<String> watchedNamespaces() {
        return watchedNamespaces;
    }

    /** Whether kube-queue manages this kind ({@code kube-queue.disabled-kinds} does not name it). */
    public boolean enabled(String kind) {
        return !disabledKinds.contains(kind);
    }

    /** What each namespace's new pods get from the admission plugins: the source jobs are priced with. */
    public PodDefaultsSource pricing() {
        return pricing;
    }

    /**
     * Whether the scheduler holds this job as pending (queued, backing off or held; not admitted): a job a LimitRange
     * or RuntimeClass change prices again ({@link JobRepricing}). A running job is not: its charge follows its own
     * events and their rule.
     */
    public boolean pending(String kind, HasMetadata job) {
        JobKey key = new JobKey(kind, job.getMetadata().getNamespace(), job.getMetadata().getName());
        return scheduler.status(key).map(s -> s.state() != JobState.ADMITTED).orElse(false);
    }

    /** Called with each observation of a readable job, just before the scheduler gets it (for tests). */
    void onObservation(Consumer<JobObservation> onObservation) {
        this.onObservation = onObservation;
    }

    /**
     * A job was deleted: its quota is released. Called from each kind's {@link JobDeletions} hook, since
     * reconcilers do not see deletes (see there). A running job deleted is not learnt as a run (its owner cut it
     * short); one whose last state shows it finished is (a Job with {@code ttlSecondsAfterFinished: 0} may be seen
     * only as a delete).
     *
     * @param kind the job's kind adapter
     * @param job  the job's last state
     */
    public <R extends HasMetadata> void deleted(JobKind<R> kind, R job) {
        if (!enabled(kind.kind()) || !watches(job.getMetadata().getNamespace())) {
            return;
        }
        JobKey key = new JobKey(kind.kind(), job.getMetadata().getNamespace(), job.getMetadata().getName());
        boolean finished;
        try {
            finished = kind.finished(job);
        } catch (RuntimeException e) {
            finished = false; // a last state that does not read: released all the same
        }
        LOG.debugf("observed %s: deleted%s", key, finished ? " (finished)" : "");
        finish(key, job, !finished);
        if (finished) {
            learn(kind, job, key);
        }
    }

    /**
     * Feeds the latest state of one job and asks for a scheduling cycle. Not managed, and ignored: a job with
     * neither a suspend mark nor an admission record that the scheduler does not know (unless
     * {@link #chargesUnsuspended} says its namespace counts every job: then it is charged as started outside, with
     * a {@code StartedOutsideQueue} Warning), and a suspended one that
     * has started and carries no record (paused by someone else; docs/behaviour.md §1). A job whose request
     * cannot be read gets one Warning event ({@code InvalidJob}, naming the field and value): a suspended one
     * leaves the queue, a running one stays charged (see {@link Scheduler#observeUnreadable}); a later fix to it
     * is read like any other change. The observation says whether the job stops when suspended again (its
     * kind's {@link StopsWhenSuspended#stopMark}) and carries its eviction annotations ({@link EvictionAnnotations});
     * one that does not read gets one Warning event ({@code InvalidEvictionMark}) and is read as absent.
     *
     * @param kind    the job's kind adapter
     * @param job     the job as last seen
     */
    public <R extends HasMetadata> void observe(JobKind<R> kind, R job) {
        if (!enabled(kind.kind()) || !watches(job.getMetadata().getNamespace())) {
            return;
        }
        // the key the directory holds, if it knows the job: the scheduler then keeps that one too
        JobKey key = directory.known(new JobKey(kind.kind(), job.getMetadata().getNamespace(),
                job.getMetadata().getName()));
        if (kind.finished(job)) {
            LOG.debugf("observed %s: finished", key);
            finish(key, job, false);
            learn(kind, job, key);
            return;
        }
        if (!signatures.hasKey()) {
            // start-up waits for the record key (RBAC): nothing can be told kube-queue's from a forgery yet; once it
            // is read, start-up recovery lists every job, so nothing seen now is lost
            LOG.debugf("observed %s before the record key was read: left to start-up recovery", key);
            return;
        }
        List<SuspendMark> marks = kind.suspendMarks(job);
        RecordSignatures.Reading signed = signatures.read(job.getMetadata().getUid(), job.getMetadata().getAnnotations());
        AdmissionRecord record = signed.record();
        Phase phase = phaseOf(kind, job, marks, record, signed.untrustedRecord());
        boolean skippedTheQueue = false;
        // a job that carries a record, trusted or not, claims kube-queue's admission: it is managed
        if (record == null && !signed.untrustedRecord() && !scheduler.manages(key)) {
            if (phase == Phase.UNSUSPENDED_WITHOUT_RECORD && chargesUnsuspended(job.getMetadata().getNamespace())
                    && !ownedByAnotherController(job)) {
                // created without its mark where every job counts: charged as running outside kube-queue, as one
                // that runs despite its mark is, so the queued jobs are not admitted past the quota on top of it
                phase = Phase.STARTED_DESPITE_MARK;
                skippedTheQueue = true;
            } else if (phase == Phase.UNSUSPENDED_WITHOUT_RECORD) {
                return; // never suspended: not managed by kube-queue
            }
            if (phase == Phase.QUEUED && kind.started(job)) {
                // paused after it ran, by someone else (docs/behaviour.md §1): resuming it is not ours to do
                LOG.debugf("%s is suspended but has started and carries no admission record: left alone", key);
                return;
            }
        }
        JobDirectory.Entry entry = JobDirectory.Entry.of(key, kind, job, marks, signed.trusted().history());
        EvictionMarks evictions = evictionMarks(key, job, phase, signed.trusted());
        RunTimeHints runTime = runTime(kind, job, key);
        Resources request;
        try {
            // one instance per distinct request: the scheduler keeps it for as long as the job is pending
            request = SharedRequests.shared(kind.request(job, pricing.forNamespace(job.getMetadata().getNamespace())));
        } catch (InvalidJobException e) {
            if (skippedTheQueue) {
                // not queued, and no request to charge (an Argo Workflow without kube-queue/min-resources): left
                // alone as before, rather than an InvalidJob Warning on every such job of the namespace
                LOG.debugf("%s skipped the queue and its request cannot be read (%s): not charged", key, e.getMessage());
                return;
            }
            unreadable(kind, job, key, phase, record, entry, evictions, runTime, e);
            if (signed.untrusted()) {
                untrusted(job, key, signed);
            }
            return;
        } catch (RuntimeException e) {
            if (skippedTheQueue) {
                return;
            }
            // any other failure of the kind's reading is the job's too, never the watch's (docs/security.md)
            unreadable(kind, job, key, phase, record, entry, evictions, runTime,
                    new InvalidJobException("spec", "...", "cannot be read (" + brief(e) + ")"));
            return;
        }
        invalid.remove(key);
        directory.put(key, entry);
        JobObservation observation = observation(kind, job, key, phase, request, record)
                .withEvictions(entry.stopMark() != null, evictions).withPods(pods(kind, job, record))
                .withAdmittedRequest(record == null ? null : AdmittedRequests.read(signed.trusted().admittedRequest()))
                .withRunTime(runTime);
        onObservation.accept(observation);
        Observed observed = scheduler.observe(observation);
        LOG.debugf("observed %s: %s, request %s: %s", key, phase, request, observed.change());
        boolean told = signed.untrusted() && untrusted(job, key, signed);
        switch (observed.change()) {
            case QUEUED, REQUEUED -> {
                if (observed.group() != null) {
                    String message = (observed.change() == Observed.Change.REQUEUED ? "suspended again: " : "")
                            + "queued in quota group " + observed.group();
                    if (!effects.deferQueuedEvent(key, message)) {
                        events.normal(job, "Queued", message);
                    }
                }
            }
            case CHARGED_STARTED_OUTSIDE -> // have the charge written on it, so that a restart keeps it
                    effects.startedOutside(new StartedOutside(new Admission(key, job.getMetadata().getUid(),
                            observed.record(), request, 0), signed.untrustedRecord()
                            ? "it carries an admission record kube-queue did not write"
                            : skippedTheQueue ? "it was created without its suspend mark, in namespace "
                                    + key.namespace() + " where every job is charged (kube-queue.charge-unsuspended-in)"
                            : phase == Phase.STARTED_DESPITE_MARK ? ignoredMarkReason(kind, marks)
                            : "its suspend mark was removed by hand", told));
            default -> {
            }
        }
        if (phase == Phase.QUEUED) {
            queuedCondition(kind, job);
        }
        if (observed.unconfirmed() != null) {
            effects.unconfirmedCopy(observed.unconfirmed());
        }
        effects.changed();
    }

    /**
     * {@link #observe}, with any failure kept at the job: what every reconciler and start-up recovery call. A job
     * whose kind adapter throws before its request is read (its status, marks or priority cannot be read) gets one
     * Warning event ({@code InvalidJob}) and its log line, and the scheduler keeps what it knew of it; its watch, the
     * other jobs and start-up go on (docs/security.md, "Hostile input: the bounds").
     *
     * @return whether the job was observed (false: it was reported as unreadable)
     */
    public <R extends HasMetadata> boolean observeOrReport(JobKind<R> kind, R job) {
        try {
            observe(kind, job);
            return true;
        } catch (RuntimeException e) {
            String key = kind.kind() + " " + (job.getMetadata() == null ? "?" : job.getMetadata().getNamespace() + "/"
                    + job.getMetadata().getName());
            LOG.debugf(e, "cannot read %s", key);
            if (job.getMetadata() != null) {
                events.warning(job, "InvalidJob", "kube-queue cannot read this " + kind.kind() + " (" + brief(e)
                        + "); what it knew of the job stands until the job changes");
            } else {
                LOG.warnf("cannot read %s: %s", key, brief(e));
            }
            return false;
        }
    }

    /** An exception in one bounded line: its class and the start of its message. */
    static String brief(RuntimeException e) {
        String message = e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
        message = message.lines().findFirst().orElse(message);
        return message.length() > InvalidJobException.SHOWN
                ? message.substring(0, InvalidJobException.SHOWN) + "..." : message;
    }

    /**
     * What the scheduler would be told about this job if it were submitted now, without telling it: for a dry
     * run. A job with no creation time (not created yet) counts as created at {@code now}.
     *
     * @return the observation, with phase QUEUED if the job carries a suspend mark
     * @throws InvalidJobException naming the field and value of a request that cannot be read
     */
    public <R extends HasMetadata> JobObservation preview(JobKind<R> kind, R job, Instant now) {
        JobKey key = new JobKey(kind.kind(), job.getMetadata().getNamespace() == null ? "default"
                : job.getMetadata().getNamespace(), job.getMetadata().getName());
        Phase phase = phaseOf(kind, job, kind.suspendMarks(job), null, false);
        JobObservation o = observation(kind, job, key, phase, kind.request(job, pricing.forNamespace(key.namespace())),
                null);
        RunTimeHints runTime = runTime(kind, job, key, false); // the dry run's estimate goes by them too
        return (job.getMetadata().getCreationTimestamp() != null ? o : new JobObservation(o.key(), o.uid(), o.phase(),
                o.request(), o.priority(), now, o.quotaName(), o.preemptible(), null)).withRunTime(runTime);
    }

    private static <R extends HasMetadata> JobObservation observation(JobKind<R> kind, R job, JobKey key, Phase phase,
                                                                       Resources request, AdmissionRecord record) {
        Map<String, String> labels = job.getMetadata().getLabels() == null ? Map.of() : job.getMetadata().getLabels();
        String created = job.getMetadata().getCreationTimestamp();
        return new JobObservation(key, job.getMetadata().getUid(), phase, request, kind.priority(job),
                created == null ? Instant.EPOCH : Instant.parse(created),
                labels.get(Annotations.QUOTA_NAME_LABEL),
                !"false".equals(labels.get(Annotations.PREEMPTIBLE_LABEL)),
                record, job.getMetadata().getResourceVersion());
    }

    /**
     * What the job says of its pods: whether its kind's status counts some active ({@link CountsActivePods}), and
     * whether it carries kube-queue's signed mark that a pod ran under its admission record ({@link Annotations#POD_RAN};
     * a mark written by hand, or left from an earlier admission, reads as none).
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private <R extends HasMetadata> JobObservation.Pods pods(JobKind<R> kind, R job, AdmissionRecord record) {
        boolean active = kind instanceof CountsActivePods counts && counts.podsActive(job);
        Map<String, String> annotations = job.getMetadata().getAnnotations();
        boolean ran = record != null && annotations != null && annotations.containsKey(Annotations.POD_RAN)
                && signatures.podRanUnder(job.getMetadata().getUid(), record, annotations.get(Annotations.POD_RAN));
        return active || ran ? new JobObservation.Pods(active, ran) : JobObservation.Pods.NONE;
    }

    /**
     * Where a job stands by its marks, its record and what its controller does: a job is queued only while its
     * controller holds it ({@link JobKind#held}); one that carries a mark its controller ignores runs.
     */
    private static <R extends HasMetadata> Phase phaseOf(JobKind<R> kind, R job, List<SuspendMark> marks,
                                                         AdmissionRecord record, boolean untrustedRecord) {
        if (!marks.isEmpty() && kind.held(job)) {
            return Phase.QUEUED;
        }
        if (record != null) {
            return Phase.ADMITTED;
        }
        // one that runs with a record kube-queue did not write is charged as started outside, seen before or not
        return marks.isEmpty() && !untrustedRecord ? Phase.UNSUSPENDED_WITHOUT_RECORD : Phase.STARTED_DESPITE_MARK;
    }

    /**
     * Why a job that carries {@code marks} runs anyway: its controller does not read them (docs/behaviour.md §1),
     * e.g. "it carries annotation scheduling.x-k8s.io/suspend: "true", which the Job controller does not read, so
     * it runs".
     */
    public static String ignoredMarkReason(JobKind<?> kind, List<SuspendMark> marks) {
        return "it carries " + marks.stream().map(SuspendMark::describe).collect(Collectors.joining(" and "))
                + ", which the " + kind.kind() + " controller does not read, so it runs";
    }

    /**
     * A job whose request cannot be read: one Warning event, naming the field, that says what happens to it. A
     * suspended job leaves the queue until fixed; a running one is never uncharged for it (see
     * {@link Scheduler#observeUnreadable}).
     */
    private <R extends HasMetadata> void unreadable(JobKind<R> kind, R job, JobKey key, Phase phase,
                                                    AdmissionRecord record, JobDirectory.Entry entry,
                                                    EvictionMarks evictions, RunTimeHints runTime,
                                                    InvalidJobException e) {
        JobObservation o = observation(kind, job, key, phase, Resources.NONE, record)
                .withEvictions(entry.stopMark() != null, evictions).withPods(pods(kind, job, record))
                .withRunTime(runTime);
        Unreadable outcome = scheduler.observeUnreadable(o);
        if (phase == Phase.QUEUED) {
            scheduler.unconfirmedAdmission(key).ifPresent(effects::unconfirmedCopy);
        }
        Optional<JobStatus> now = scheduler.status(key);
        String group = now.map(JobStatus::group).orElse("?");
        String what = switch (outcome) {
            case IGNORED -> null;
            case WITHDRAWN -> "the job stays suspended until it is fixed";
            case KEPT -> "the job " + (phase == Phase.QUEUED ? "is being admitted" : "runs")
                    + " and stays charged at its last known request "
                    + now.map(JobStatus::request).orElse(Resources.NONE) + " in quota group " + group;
            case HOLDS_GROUP -> "the job runs and its use is unknown, so quota group " + group
                    + " admits nothing more until it is fixed or ends; the groups above it count " + group
                    + " at the most its limits let it use";
        };
        if (what == null) {
            return;
        }
        if (outcome == Unreadable.WITHDRAWN) {
            invalid.add(key);
        } else {
            directory.put(key, entry);
        }
        events.warning(job, "InvalidJob", e.getMessage() + "; " + what);
        effects.changed();
    }

    /** How many suspended jobs are left out of the queue now because their request cannot be read. */
    public int invalidJobs() {
        return invalid.size();
    }

    /** A job ended: {@code deleted}, its run (if it ran) was cut short and is not learnt as one. */
    private void finish(JobKey key, HasMetadata job, boolean deleted) {
        invalid.remove(key);
        String uid = job.getMetadata().getUid();
        Observed observed = deleted ? scheduler.deleted(key, uid) : scheduler.observe(JobObservation.finished(key, uid));
        if (!observed.held()) {
            directory.remove(key);
        }
        // only a charged job frees room worth a cycle at once (a resync reconciles every finished job)
        if (observed.released()) {
            effects.released();
        } else {
            effects.changed();
        }
    }

    /**
     * What the job says of its run time: its {@link Annotations#EXPECTED_DURATION} ({@link RunTimeFields#expectedDuration})
     * and, if its kind tells it ({@link TellsRunTime}), its {@code activeDeadlineSeconds}. Never throws: what does not
     * read is absent. An expected duration that does not read gets one Warning event on the job
     * ({@code InvalidExpectedDuration}, naming the value unless it is longer than
     * {@value RunTimeFields#EXPECTED_DURATION_MAX_LENGTH} characters; its log line is the Warning's) the first time
     * it is seen on the job.
     *
     * @return the hints; {@link RunTimeHints#NONE} if the job says nothing
     */
    <R extends HasMetadata> RunTimeHints runTime(JobKind<R> kind, R job, JobKey key) {
        return runTime(kind, job, key, true);
    }

    /** As {@link #runTime(JobKind, HasMetadata, JobKey)}; {@code report} false: no event (a dry run's manifest). */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private <R extends HasMetadata> RunTimeHints runTime(JobKind<R> kind, R job, JobKey key, boolean report) {
        java.time.Duration deadline = null;
        if (kind instanceof TellsRunTime tells) {
            try {
                deadline = ((Optional<java.time.Duration>) tells.activeDeadline(job)).orElse(null);
            } catch (RuntimeException e) {
                LOG.debugf(e, "%s: activeDeadlineSeconds cannot be read; read as absent", key);
            }
        }
        Map<String, String> annotations = job.getMetadata().getAnnotations();
        String value = annotations == null ? null : annotations.get(Annotations.EXPECTED_DURATION);
        RunTimeFields.ExpectedDuration expected = RunTimeFields.expectedDuration(value);
        if (expected.problem() != null && report) {
            reportExpectedDuration(key, job, value, expected.problem());
        }
        return expected.duration() == null && deadline == null ? RunTimeHints.NONE
                : new RunTimeHints(expected.duration(), deadline);
    }

    /** One Warning event ({@code InvalidExpectedDuration}) the first time a job's expected duration is seen unreadable. */
    private void reportExpectedDuration(JobKey key, HasMetadata job, String value, String problem) {
        boolean tooLong = value.length() > RunTimeFields.EXPECTED_DURATION_MAX_LENGTH;
        boolean first;
        synchronized (reportedDurations) {
            first = reportedDurations.put(key + " " + job.getMetadata().getUid() + " " + (tooLong ? "" : "\"" + value),
                    Boolean.TRUE) == null;
        }
        if (first) {
            events.warning(job, "InvalidExpectedDuration", "annotation " + Annotations.EXPECTED_DURATION
                    + (tooLong ? "" : " has \"" + InvalidJobException.shown(value) + "\", which") + " " + problem
                    + "; kube-queue reads it as absent: the job queues as usual, and its start-time estimate goes by"
                    + " the run times of alike jobs (write e.g. 90m, 1h30m or 45s, at most 366 days)");
        }
    }

    /**
     * Learns a finished job's run for the start-time estimates ({@link JobIntake#learn}): one that carries
     * kube-queue's admission record (trusted, {@link RecordSignatures}; not a started-outside charge) whose
     * {@code admittedAt} reads, and whose kind gives its completion time ({@link TellsRunTime#completionTime}). Its
     * request is read as the feed reads it ({@link Resources#NONE} if it cannot be). Every finished job seen is asked,
     * start-up recovery's included, so the history is rebuilt after a restart; the scheduler counts a run once. A run
     * that would last more than {@link RunTimeFields#LONGEST} says nothing worth learning and is left out. Before the
     * record key is read nothing is learnt (start-up recovery lists the job again once it is). Never throws.
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private <R extends HasMetadata> void learn(JobKind<R> kind, R job, JobKey key) {
        if (!(kind instanceof TellsRunTime tells) || !signatures.hasKey()) {
            return;
        }
        try {
            AdmissionRecord record = signatures.read(job.getMetadata().getUid(), job.getMetadata().getAnnotations())
                    .record();
            if (record == null || record.startedOutside() || record.group() == null || record.admittedAt() == null) {
                return;
            }
            Optional<Instant> admittedAt = RunTimeFields.time(record.admittedAt());
            Optional<Instant> finishedAt = admittedAt.isEmpty() ? Optional.empty()
                    : (Optional<Instant>) tells.completionTime(job);
            if (finishedAt.isEmpty()
                    || java.time.Duration.between(admittedAt.get(), finishedAt.get()).compareTo(RunTimeFields.LONGEST) > 0) {
                return;
            }
            Resources request;
            try {
                request = kind.request(job, pricing.forNamespace(job.getMetadata().getNamespace()));
            } catch (RuntimeException e) {
                request = Resources.NONE;
            }
            scheduler.learn(new FinishedRun(key, record.group(), request, admittedAt.get(), finishedAt.get()));
        } catch (RuntimeException e) {
            LOG.debugf(e, "%s: its run cannot be learnt", key);
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private void queuedCondition(JobKind<?> kind, HasMetadata job) {
        if (kind instanceof ShowsQueuingCondition shows && shows.showsQueuing((CustomResource) job)
                && !"True".equals(shows.queuingStatus((CustomResource) job))) {
            effects.showQueuing(new Queued(shows, (CustomResource) job));
        }
    }

    /**
     * The job's eviction annotations ({@link EvictionAnnotations#read}); the reason and preemptor only while it is
     * queued. A value that does not read gets one Warning event on the job ({@code InvalidEvictionMark}, naming the
     * annotation and the value; its log line is the Warning's) the first time it is seen, and is read as absent.
     */
    private EvictionMarks evictionMarks(JobKey key, HasMetadata job, Phase phase, RecordFields trusted) {
        Map<String, String> marks = trusted.asAnnotations();
        String sealed = marks.get(Annotations.EVICTED_FOR);
        if (sealed != null && !sealed.isEmpty()) {
            // kube-queue seals the preemptor, another team's job (RecordSignatures#seal): opened here for the core
            String preemptor = signatures.open(job.getMetadata().getUid(), sealed);
            if (preemptor == null) {
                marks.remove(Annotations.EVICTED_FOR);
                reportMark(key, job, new EvictionAnnotations.Problem(Annotations.EVICTED_FOR,
                        InvalidJobException.shown(sealed), "a preemptor kube-queue sealed for this job"));
            } else {
                marks.put(Annotations.EVICTED_FOR, preemptor);
            }
        }
        return EvictionAnnotations.read(marks, phase == Phase.QUEUED, problem -> reportMark(key, job, problem));
    }

    /** One Warning event ({@code InvalidEvictionMark}) the first time an eviction annotation's value is seen unreadable. */
    private void reportMark(JobKey key, HasMetadata job, EvictionAnnotations.Problem problem) {
        boolean first;
        synchronized (reportedMarks) {
            first = reportedMarks.put(key + " " + problem.annotation() + " " + problem.value(), true) == null;
        }
        if (first) {
            events.warning(job, "InvalidEvictionMark", "annotation " + problem.annotation() + " has \""
                    + problem.value() + "\", which is not " + problem.expected()
                    + "; kube-queue reads it as absent (it writes this annotation itself when it evicts the job)");
        }
    }

    /**
     * A job carries an admission record or eviction history kube-queue did not write ({@link RecordSignatures}): one
     * Warning event ({@code UntrustedRecord}, its log line the Warning's) the first time each such set is seen, saying
     * what the job is taken for now that the set reads as absent. Called after the scheduler took the observation in.
     *
     * @return whether the event was asked for now (false: this very set was reported before)
     */
    private boolean untrusted(HasMetadata job, JobKey key, RecordSignatures.Reading signed) {
        Map<String, String> annotations = job.getMetadata().getAnnotations();
        String seen = key + " " + job.getMetadata().getUid() + " " + digest(signed.fields().values(),
                annotations.get(Annotations.RECORD_SIGNATURE));
        synchronized (reportedUntrusted) {
            if (reportedUntrusted.put(seen, Boolean.TRUE) != null) {
                return false;
            }
        }
        Map<String, String> carried = signed.fields().asAnnotations();
        String which = carried.entrySet().stream().filter(e -> !e.getValue().isEmpty())
                .map(e -> e.getKey() + ": \"" + InvalidJobException.shown(e.getValue()) + "\"") // bounded: a log line
                .collect(Collectors.joining(", "));
        String why = signed.trust() == RecordSignatures.Trust.UNSIGNED
                ? "they carry no " + Annotations.RECORD_SIGNATURE + ": written by hand, or by a kube-queue older than"
                        + " signed records, see docs/upgrade.md"
                : "their " + Annotations.RECORD_SIGNATURE + " is not kube-queue's for these values on this job";
        Optional<JobStatus> now = scheduler.status(key);
        String what = now.map(status -> status.state() != JobState.ADMITTED
                ? "the job queues in quota group " + status.group() + " as one kube-queue never admitted or evicted"
                : status.record() != null && status.record().startedOutside()
                ? "the job runs, so it is charged as started outside kube-queue to quota group " + status.group()
                        + " (its own) until it ends, and kube-queue writes its own record on it"
                : "the job stays charged as kube-queue admitted it, to quota group " + status.group())
                .orElse("kube-queue leaves the job alone");
        events.warning(job, "UntrustedRecord", "annotations " + which + " were not written by kube-queue (" + why
                + "). kube-queue reads them as absent: " + what);
        return true;
    }

    /** A SHA-256 of the values (a tenant's annotations may be large; what is remembered of them is not). */
    private static String digest(List<String> values, String signature) {
        try {
            java.security.MessageDigest sha = java.security.MessageDigest.getInstance("SHA-256");
            for (String value : values) {
                sha.update(value.getBytes(java.nio.charset.StandardCharsets.UTF_8));
                sha.update((byte) 0);
            }
            sha.update(String.valueOf(signature).getBytes(java.nio.charset.StandardCharsets.UTF_8));
            return java.util.HexFormat.of().formatHex(sha.digest());
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }
}
