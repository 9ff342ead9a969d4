package io.kubequeue.admission;

import static io.kubequeue.admission.JsonPatchOps.JSON;
import static io.kubequeue.admission.JsonPatchOps.op;

import java.util.Map;

import com.fasterxml.jackson.databind.node.ArrayNode;

import io.kubequeue.job.AdmittedRequests;
import io.kubequeue.job.Annotations;
import io.kubequeue.job.JobDirectory;
import io.kubequeue.job.RecordFields;
import io.kubequeue.job.RecordSignatures;
import io.kubequeue.job.SuspendMark;
import io.kubequeue.scheduler.model.Admission;

/**
 * The admission patch, kube-queue's write that starts a job (see {@link Admitter}; the other write to a job is an
 * eviction's, {@link EvictionPatch}): built here so that its shape,
 * which a real API server must accept (../shared/reference/real-apiserver.md, "JSON Patch"), is read and tested in
 * one place.
 */
final class AdmissionPatch {

    private AdmissionPatch() {
    }

    /**
     * The JSON Patch (RFC 6902) for one admission, as a real API server applies it to the job as stored: a {@code test}
     * of the uid the decision was made for (a namesake created since refuses it), a {@code test} and a removal for
     * each mark, then the signed set ({@link RecordFields}, {@link RecordSignatures}): the admission record, the
     * eviction marks {@link Annotations#EVICTED} and {@link Annotations#EVICTED_FOR} emptied (admitted again, a job is
     * no longer suspended by kube-queue, and a later suspension by its user must not read as kube-queue's eviction),
     * the eviction histories kube-queue wrote on the job ({@link JobDirectory.Entry#history}; they count evictions per
     * hour, and one it did not write is dropped), and the signature over all six and the uid. All seven are written
     * whatever the job carries, so that what is signed is exactly what the job holds afterwards. A job with
     * annotations gets them one key at a time; one without gets the map added whole, since an {@code add} whose
     * parent is missing is refused (422).
     *
     * <p>The patch first tests the {@code resourceVersion} the decision was made on ({@link Admission#resourceVersion};
     * issue 26): a job changed since in any way (its request, its labels, its annotations, a status write) refuses
     * it (422) and is decided again as it is now, so a decision never starts a job it did not read. An admission
     * without a version (a charge recorded on a running job) is bound to the version of {@code entry} when the map
     * is added whole, since that would replace annotations written since the job was seen.
     *
     * @throws IllegalStateException before the record key is loaded
     */
    static ArrayNode of(JobDirectory.Entry entry, Admission admission, RecordSignatures signatures) {
        ArrayNode ops = JSON.arrayNode();
        if (admission.uid() != null) {
            ops.add(op("test", "/metadata/uid").put("value", admission.uid()));
        }
        String version = admission.resourceVersion() != null ? admission.resourceVersion()
                : entry.annotationsPresent() ? null : entry.resourceVersion();
        if (version != null) {
            ops.add(op("test", "/metadata/resourceVersion").put("value", version));
        }
        for (SuspendMark mark : entry.marks()) {
            if (mark.isAnnotation()) {
                ops.add(op("test", mark.pointer()).put("value", "true"));
                ops.add(op("remove", mark.pointer()));
            } else {
                ops.add(op("test", mark.pointer()).put("value", true));
                ops.add(op("replace", mark.pointer()).put("value", false));
            }
        }
        // the request decided is part of the record: a restart charges a running job at least that (its pods keep it)
        RecordFields fields = RecordFields.admission(admission.record().group(), admission.record().admittedAt(),
                entry.history(), AdmittedRequests.write(admission.request()));
        Map<String, String> signed = fields.asAnnotations();
        signed.put(Annotations.RECORD_SIGNATURE, signatures.sign(uid(entry, admission), fields));
        JsonPatchOps.addAnnotations(ops, entry.annotationsPresent(), signed);
        return ops;
    }

    /** The uid the record is signed for: the decision's, else the job's as seen. */
    private static String uid(JobDirectory.Entry entry, Admission admission) {
        return admission.uid() != null ? admission.uid() : entry.uid();
    }
}
