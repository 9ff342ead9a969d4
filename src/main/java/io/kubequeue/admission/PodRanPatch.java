package io.kubequeue.admission;

import static io.kubequeue.admission.JsonPatchOps.JSON;
import static io.kubequeue.admission.JsonPatchOps.annotation;
import static io.kubequeue.admission.JsonPatchOps.op;

import com.fasterxml.jackson.databind.node.ArrayNode;

import io.kubequeue.job.Annotations;
import io.kubequeue.job.RecordSignatures;
import io.kubequeue.scheduler.model.Admission;

/**
 * The JSON Patch (RFC 6902) that writes the pod-ran mark ({@link Annotations#POD_RAN}) on a running job: a
 * {@code test} of the uid and of {@link Annotations#ADMITTED_AT} (the mark is for this admission only: a job deleted
 * and created again, or suspended and admitted again since, refuses it with 422), then one {@code add} of the signed
 * mark ({@link RecordSignatures#podRanMark}). The job carries its admission record, so its annotation map exists and
 * the {@code add} targets a member of it, as a real API server requires.
 */
final class PodRanPatch {

    private PodRanPatch() {
    }

    /** The patch for this admission; its uid may be null (not tested then). */
    static ArrayNode of(Admission admission, RecordSignatures signatures) {
        ArrayNode ops = JSON.arrayNode();
        if (admission.uid() != null) {
            ops.add(op("test", "/metadata/uid").put("value", admission.uid()));
        }
        ops.add(op("test", annotation(Annotations.ADMITTED_AT)).put("value", admission.record().admittedAt()));
        ops.add(op("add", annotation(Annotations.POD_RAN))
                .put("value", signatures.podRanMark(admission.uid(), admission.record())));
        return ops;
    }
}
