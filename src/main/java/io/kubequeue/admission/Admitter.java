package io.kubequeue.admission;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import jakarta.inject.Singleton;

import org.jboss.logging.Logger;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.kubequeue.events.EventRecorder;
import io.kubequeue.job.Annotations;
import io.kubequeue.job.JobDirectory;
import io.kubequeue.job.JobKind;
import io.kubequeue.job.SuspendMark;
import io.kubequeue.job.kubeflow.KubeflowJobKind;
import io.kubequeue.scheduler.Admission;
import io.kubequeue.scheduler.AdmissionRecord;
import io.kubequeue.scheduler.JobKey;
import io.kubequeue.scheduler.Resources;
import io.kubequeue.scheduler.Scheduler;

/**
 * The only code that writes jobs: it carries out one {@link Admission} as a single JSON Patch (RFC 6902).
 *
 * <p>The patch holds, for each suspend mark the job carries, a {@code test} op on the mark followed by its
 * removal, then the admission record annotations. If the job changed since the decision (another replica
 * admitted it, the user edited the mark) the {@code test} fails and nothing is written: a stale decision can
 * never admit twice. A refused admission is handed back to the scheduler, which uncharges it and retries; after
 * {@value #REFUSALS_BEFORE_WARNING} refusals in a row with the same HTTP status, the job gets one Warning event
 * ({@code AdmissionRefused}) with the API server's message, so a patch the server will never take does not loop
 * unseen.
 *
 * <p>The patch is one a real API server applies (RFC 6902 strictly): an {@code add} never targets a child of a
 * missing member, so a job without annotations gets the record as a whole map
 * (../shared/reference/real-apiserver.md, "JSON Patch").
 */
@Singleton
public class Admitter {

    private static final Logger LOG = Logger.getLogger(Admitter.class);
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
    /** Refusals of one job's admission in a row, with the same HTTP status, before its Warning event. */
    static final int REFUSALS_BEFORE_WARNING = 3;
    /** Jobs whose refusal streaks are remembered (the oldest forgotten first): bounded memory. */
    private static final int REFUSAL_STREAKS_KEPT = 10_000;

    /** One job's refusals in a row, all with this HTTP status. */
    private record RefusalStreak(int code, int count) {
    }

    private final Map<JobKey, RefusalStreak> refusalStreaks = new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<JobKey, RefusalStreak> eldest) {
            return size() > REFUSAL_STREAKS_KEPT;
        }
    };

    private final KubernetesClient client;
    private final Scheduler scheduler;
    private final JobDirectory directory;
    private final EventRecorder events;
    private final QueuingConditions queuing;

    public Admitter(KubernetesClient client, Scheduler scheduler, JobDirectory directory,
                    EventRecorder events, QueuingConditions queuing) {
        this.client = client;
        this.scheduler = scheduler;
        this.directory = directory;
        this.events = events;
        this.queuing = queuing;
    }

    /**
     * Writes one admission; blocks for one API-server round trip (two when the answer is ambiguous).
     * Never throws: every failure ends in {@link Scheduler#admissionFailed} or in a confirmed admission.
     *
     * @return whether the job is admitted as decided (the patch applied, or an ambiguous answer confirmed)
     */
    public boolean admit(Admission admission) {
        Optional<JobDirectory.Entry> seen = directory.get(admission.key());
        if (seen.isEmpty() || seen.get().marks().isEmpty()) {
            scheduler.admissionFailed(admission.key(), admission.record());
            return false;
        }
        JobDirectory.Entry entry = seen.get();
        String patch = patchFor(entry, admission).toString();
        try {
            HasMetadata admitted = resource(entry.kind(), admission).patch(PatchContext.of(PatchType.JSON), patch);
            endRefusalStreak(admission.key());
            scheduler.admissionConfirmed(admission.key(), admission.record(), admitted.getMetadata().getResourceVersion());
            showAdmitted(entry.kind(), admitted);
            LOG.infof("admitted %s into quota group %s (request %s, waited %d ms)", admission.key(),
                    admission.record().group(), admission.request(), admission.waited());
            events.normal(entry.ref(), "Admitted", "admitted into quota group " + admission.record().group()
                    + " with request " + admission.request());
            return true;
        } catch (KubernetesClientException e) {
            int code = e.getCode();
            if (code == 404) {
                // the job is gone: forget it; its delete event may never come if it was deleted before the
                // informers listed it, or while a reconcile held an older copy
                LOG.debugf("admission of %s: the job is gone", admission.key());
                endRefusalStreak(admission.key());
                scheduler.admissionTargetGone(admission.key(), admission.record());
            } else if (definiteRefusal(code)) {
                // the patch was not applied: most often the job changed since the decision (a test op failed)
                LOG.debugf("admission of %s refused (%d): %s", admission.key(), code, e.getMessage());
                countRefusal(entry, admission.key(), code, serverMessage(e));
                refused(entry, admission);
            } else {
                return confirm(entry, admission, e);
            }
            return false;
        }
    }

    /**
     * A refused admission: if the job was started by hand meanwhile (no mark left), its charge is kept as started
     * outside kube-queue, since the room is in use and the informer may tell the scheduler so only later;
     * otherwise the charge is handed back. The read only decides about this admission; the job's state still
     * reaches the scheduler through the informer, in order.
     */
    private void refused(JobDirectory.Entry entry, Admission admission) {
        boolean startedByHand;
        try {
            HasMetadata job = resource(entry.kind(), admission).get();
            startedByHand = job != null && suspendMarks(entry.kind(), job).isEmpty()
                    && (job.getMetadata().getAnnotations() == null
                    || !job.getMetadata().getAnnotations().containsKey(Annotations.QUOTA_GROUP));
        } catch (KubernetesClientException e) {
            LOG.debugf("could not read %s after a refused admission (%s): handing the charge back", admission.key(),
                    e.getMessage());
            startedByHand = false;
        }
        LOG.debugf("admission of %s refused; started by hand meanwhile: %s", admission.key(), startedByHand);
        if (startedByHand) {
            scheduler.admissionOverridden(admission.key(), admission.record())
                    .ifPresent(kept -> recordStartedOutside(admission.key(), kept));
        } else {
            scheduler.admissionFailed(admission.key(), admission.record());
        }
    }

    /**
     * Whether the API server answered that it did not apply the patch and will not without a change: a bad or
     * stale patch (400, 409, 422) or missing rights (401, 403). Anything else (5xx, 429, a timeout) may have been
     * applied and is read back instead.
     */
    static boolean definiteRefusal(int code) {
        return code == 400 || code == 401 || code == 403 || code == 409 || code == 422;
    }

    /**
     * Counts one more refusal of this job's admission; the {@value #REFUSALS_BEFORE_WARNING}th in a row with the
     * same HTTP status gives the job one Warning event with the server's message (and one log line).
     */
    private void countRefusal(JobDirectory.Entry entry, JobKey key, int code, String message) {
        RefusalStreak streak;
        synchronized (refusalStreaks) {
            RefusalStreak before = refusalStreaks.get(key);
            streak = new RefusalStreak(code, before != null && before.code() == code ? before.count() + 1 : 1);
            refusalStreaks.put(key, streak);
        }
        if (streak.count() == REFUSALS_BEFORE_WARNING) {
            events.warning(entry.ref(), "AdmissionRefused", "the API server refused the admission patch "
                    + streak.count() + " times in a row (HTTP " + code + ": " + message
                    + "); kube-queue keeps retrying with backoff");
        }
    }

    private void endRefusalStreak(JobKey key) {
        synchronized (refusalStreaks) {
            refusalStreaks.remove(key);
        }
    }

    /** The API server's own message ({@code Status.message}), else the client's. */
    private static String serverMessage(KubernetesClientException e) {
        return e.getStatus() != null && e.getStatus().getMessage() != null && !e.getStatus().getMessage().isBlank()
                ? e.getStatus().getMessage() : e.getMessage();
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static List<SuspendMark> suspendMarks(JobKind kind, HasMetadata job) {
        return kind.suspendMarks(job);
    }

    /**
     * A queued job was started without kube-queue (its suspend mark removed by hand) and the scheduler charged it
     * to its group: writes that charge on the job as an admission record, so that a restart charges it again
     * instead of forgetting it, and tells the owner with a Warning event. A failed write is logged; the charge
     * holds until the job ends.
     *
     * @param key    the job
     * @param record the charge the scheduler made (its group, and {@code admittedAt} saying how it started)
     */
    public void recordStartedOutside(JobKey key, AdmissionRecord record) {
        Optional<JobDirectory.Entry> seen = directory.get(key);
        if (seen.isEmpty() || record.group() == null) {
            return;
        }
        JobDirectory.Entry entry = new JobDirectory.Entry(seen.get().kind(), seen.get().ref(), List.of(),
                seen.get().annotationsPresent(), seen.get().resourceVersion());
        Admission charge = new Admission(key, record, Resources.NONE, 0);
        try {
            resource(entry.kind(), charge).patch(PatchContext.of(PatchType.JSON), patchFor(entry, charge).toString());
            events.warning(entry.ref(), "StartedOutsideQueue", "started without kube-queue (suspend mark removed by hand);"
                    + " charged to quota group " + record.group() + " until it ends");
        } catch (KubernetesClientException e) {
            LOG.warnf("%s was started outside kube-queue; recording its charge failed (%s): it stays charged, but a"
                    + " restart before it ends will not know it", key, e.getMessage());
        }
    }

    /**
     * The answer was ambiguous (5xx, timeout): the patch may have been applied. Read the job back; only if it
     * clearly lacks this admission is the charge handed back. If even that read fails, the charge stays (quota
     * is never over-admitted) and the job's next event settles it.
     */
    private boolean confirm(JobDirectory.Entry entry, Admission admission, KubernetesClientException cause) {
        try {
            HasMetadata job = resource(entry.kind(), admission).get();
            boolean ours = job != null && job.getMetadata().getAnnotations() != null
                    && admission.record().admittedAt().equals(job.getMetadata().getAnnotations().get(Annotations.ADMITTED_AT));
            if (!ours) {
                LOG.warnf("admission of %s failed (%d: %s); it will be retried", admission.key(), cause.getCode(),
                        cause.getMessage());
                scheduler.admissionFailed(admission.key(), admission.record());
                return false;
            }
            scheduler.admissionConfirmed(admission.key(), admission.record(), job.getMetadata().getResourceVersion());
            return true;
        } catch (KubernetesClientException e) {
            LOG.warnf("admission of %s is unconfirmed (%s); its quota stays charged until the job is seen again",
                    admission.key(), e.getMessage());
            return false;
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private void showAdmitted(JobKind<?> kind, HasMetadata admitted) {
        if (kind instanceof KubeflowJobKind kubeflow && admitted instanceof CustomResource job) {
            queuing.admitted(kubeflow, job);
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private io.fabric8.kubernetes.client.dsl.Resource<HasMetadata> resource(JobKind<?> kind, Admission admission) {
        return (io.fabric8.kubernetes.client.dsl.Resource<HasMetadata>) (io.fabric8.kubernetes.client.dsl.Resource) client
                .resources(kind.type()).inNamespace(admission.key().namespace()).withName(admission.key().name());
    }

    /**
     * The JSON Patch (RFC 6902) for one admission, as a real API server applies it to the job as stored (visible
     * for tests): a {@code test} and a removal for each mark, then the admission record. A job with annotations
     * gets the record's two keys added to its map; one without gets the map added whole, since an {@code add}
     * whose parent is missing is refused (422). Adding the whole map would replace annotations written since the
     * job was seen, so that patch first tests the job's {@code resourceVersion}: a job changed meanwhile refuses
     * it (422) and is retried as it is now.
     */
    static ArrayNode patchFor(JobDirectory.Entry entry, Admission admission) {
        ArrayNode ops = JSON.arrayNode();
        if (!entry.annotationsPresent() && entry.resourceVersion() != null) {
            ops.add(op("test", "/metadata/resourceVersion").put("value", entry.resourceVersion()));
        }
        for (SuspendMark mark : entry.marks()) {
            if (mark == SuspendMark.ANNOTATION) {
                ops.add(op("test", mark.pointer()).put("value", "true"));
                ops.add(op("remove", mark.pointer()));
            } else {
                ops.add(op("test", mark.pointer()).put("value", true));
                ops.add(op("replace", mark.pointer()).put("value", false));
            }
        }
        if (entry.annotationsPresent()) {
            ops.add(op("add", "/metadata/annotations/" + escape(Annotations.QUOTA_GROUP))
                    .put("value", admission.record().group()));
            ops.add(op("add", "/metadata/annotations/" + escape(Annotations.ADMITTED_AT))
                    .put("value", admission.record().admittedAt()));
        } else {
            ObjectNode annotations = JSON.objectNode()
                    .put(Annotations.QUOTA_GROUP, admission.record().group())
                    .put(Annotations.ADMITTED_AT, admission.record().admittedAt());
            ops.add(op("add", "/metadata/annotations").set("value", annotations));
        }
        return ops;
    }

    private static ObjectNode op(String op, String path) {
        return JSON.objectNode().put("op", op).put("path", path);
    }

    /** RFC 6901 escaping of one pointer segment. */
    private static String escape(String segment) {
        return segment.replace("~", "~0").replace("/", "~1");
    }
}
