package io.kubequeue.admission;

import java.util.List;
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
 * never admit twice. A refused admission is handed back to the scheduler, which uncharges it and retries.
 */
@Singleton
public class Admitter {

    private static final Logger LOG = Logger.getLogger(Admitter.class);
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

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
                scheduler.admissionTargetGone(admission.key(), admission.record());
            } else if (code == 409 || code == 422 || code == 400) {
                // definite refusal: the job changed since the decision (the test op failed)
                LOG.debugf("admission of %s refused (%d): %s", admission.key(), code, e.getMessage());
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
                seen.get().hasAnnotations());
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

    /** The JSON Patch for one admission (visible for tests). */
    static ArrayNode patchFor(JobDirectory.Entry entry, Admission admission) {
        ArrayNode ops = JSON.arrayNode();
        for (SuspendMark mark : entry.marks()) {
            if (mark == SuspendMark.ANNOTATION) {
                ops.add(op("test", mark.pointer()).put("value", "true"));
                ops.add(op("remove", mark.pointer()));
            } else {
                ops.add(op("test", mark.pointer()).put("value", true));
                ops.add(op("replace", mark.pointer()).put("value", false));
            }
        }
        if (entry.hasAnnotations()) {
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
