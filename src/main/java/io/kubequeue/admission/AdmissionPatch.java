package io.kubequeue.admission;

import static io.kubequeue.admission.JsonPatchOps.JSON;
import static io.kubequeue.admission.JsonPatchOps.annotation;
import static io.kubequeue.admission.JsonPatchOps.op;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.kubequeue.job.Annotations;
import io.kubequeue.job.JobDirectory;
import io.kubequeue.job.SuspendMark;
import io.kubequeue.scheduler.Admission;

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
     * The JSON Patch (RFC 6902) for one admission, as a real API server applies it to the job as stored: a {@code test} of the uid the decision was made for (a namesake created since refuses it), a
     * {@code test} and a removal for each mark, then the admission record. A job with annotations
     * gets the record's two keys added to its map; one without gets the map added whole, since an {@code add}
     * whose parent is missing is refused (422). Adding the whole map would replace annotations written since the
     * job was seen, so that patch first tests the job's {@code resourceVersion}: a job changed meanwhile refuses
     * it (422) and is retried as it is now. A job kube-queue evicted ({@link JobDirectory.Entry#evictionMarked})
     * also gets {@link Annotations#EVICTED} and {@link Annotations#EVICTED_FOR} emptied: admitted again, it is no
     * longer suspended by kube-queue, and a later suspension by its user must not read as kube-queue's eviction.
     * The eviction histories stay (they count evictions per hour).
     */
    static ArrayNode of(JobDirectory.Entry entry, Admission admission) {
        ArrayNode ops = JSON.arrayNode();
        if (admission.uid() != null) {
            ops.add(op("test", "/metadata/uid").put("value", admission.uid()));
        }
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
            ops.add(op("add", annotation(Annotations.QUOTA_GROUP)).put("value", admission.record().group()));
            ops.add(op("add", annotation(Annotations.ADMITTED_AT)).put("value", admission.record().admittedAt()));
            if (entry.evictionMarked()) {
                ops.add(op("add", annotation(Annotations.EVICTED)).put("value", ""));
                ops.add(op("add", annotation(Annotations.EVICTED_FOR)).put("value", ""));
            }
        } else {
            ObjectNode annotations = JSON.objectNode()
                    .put(Annotations.QUOTA_GROUP, admission.record().group())
                    .put(Annotations.ADMITTED_AT, admission.record().admittedAt());
            ops.add(op("add", "/metadata/annotations").set("value", annotations));
        }
        return ops;
    }
}
