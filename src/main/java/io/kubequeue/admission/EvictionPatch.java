package io.kubequeue.admission;

import static io.kubequeue.admission.JsonPatchOps.JSON;
import static io.kubequeue.admission.JsonPatchOps.annotation;
import static io.kubequeue.admission.JsonPatchOps.op;

import java.util.Map;

import com.fasterxml.jackson.databind.node.ArrayNode;

import io.kubequeue.job.Annotations;
import io.kubequeue.job.EvictionAnnotations;
import io.kubequeue.job.RecordFields;
import io.kubequeue.job.RecordSignatures;
import io.kubequeue.job.SuspendMark;
import io.kubequeue.scheduler.model.Eviction;

/**
 * The eviction patch, kube-queue's write that suspends an admitted job again (see {@link Evicter}): built here so
 * that its shape, which a real API server must accept (../shared/reference/real-apiserver.md, "JSON Patch"), is read
 * and tested in one place, as {@link AdmissionPatch} is.
 */
final class EvictionPatch {

    private EvictionPatch() {
    }

    /**
     * The JSON Patch (RFC 6902) for one eviction, in this order:
     * <ol>
     *   <li>{@code test} of {@code /metadata/uid}, if the eviction names one: a namesake created since refuses it
     *       (422);</li>
     *   <li>{@code test} that {@link Annotations#ADMITTED_AT} is still {@code eviction.record().admittedAt()}: the job
     *       still runs under the very admission the decision was made about, so a stale decision (the job was
     *       suspended and admitted again meanwhile) cannot suspend a later admission (422);</li>
     *   <li>{@code add} of the stop mark with value {@code true} ({@code "true"} for the annotation): {@code add}
     *       replaces a member that exists, and creates {@code spec.suspend}, or {@code spec.runPolicy.suspend}
     *       under a {@code runPolicy} that exists (a kind offers that mark only when its spec has the field);</li>
     *   <li>{@code add} of the rest of the signed set ({@link RecordFields}), one key at a time (the job has an
     *       annotation map, since it carries the admission record the second op tests): {@link Annotations#QUOTA_GROUP}
     *       (the record's group), {@link Annotations#EVICTED} (the reason, lowercase), {@link Annotations#EVICTED_FOR}
     *       ({@code Kind/namespace/name} of the preemptor sealed for this job, {@link RecordSignatures#seal}: the victim's
     *       team reads it, and the preemptor is another team's job; empty for a timeout), {@link Annotations#RECLAIMED_AT} and
     *       {@link Annotations#TIMED_OUT_AT} (the eviction's history as the scheduler holds it, this eviction
     *       included), then {@link Annotations#RECORD_SIGNATURE} over all six and the uid ({@link RecordSignatures}):
     *       what is signed is exactly what the job holds afterwards.</li>
     * </ol>
     * The admission record stays on the job: its quota is released when the informer shows it suspended with that
     * record, and a restarted leader reads the marks back ({@link EvictionAnnotations#read}).
     *
     * @param stopMark the mark that stops the job ({@link io.kubequeue.job.StopsWhenSuspended#stopMark})
     * @param eviction the decision
     * @param jobUid   the job's uid as seen, which the signature binds to when the decision names none
     * @param signatures the record key ({@link RecordSignatures#sign})
     * @return the patch document
     * @throws IllegalStateException before the record key is loaded
     */
    static ArrayNode of(SuspendMark stopMark, Eviction eviction, String jobUid, RecordSignatures signatures) {
        ArrayNode ops = JSON.arrayNode();
        if (eviction.uid() != null) {
            ops.add(op("test", "/metadata/uid").put("value", eviction.uid()));
        }
        ops.add(op("test", annotation(Annotations.ADMITTED_AT)).put("value", eviction.record().admittedAt()));
        if (stopMark.isAnnotation()) {
            ops.add(op("add", stopMark.pointer()).put("value", "true"));
        } else {
            ops.add(op("add", stopMark.pointer()).put("value", true));
        }
        String uid = eviction.uid() != null ? eviction.uid() : jobUid;
        // the preemptor is another team's job, and the victim's team reads this annotation: sealed, opened on read
        RecordFields fields = new RecordFields(eviction.record().group(), eviction.record().admittedAt(),
                EvictionAnnotations.reason(eviction.reason()), signatures.seal(uid,
                EvictionAnnotations.jobRef(eviction.reason() == Eviction.Reason.RECLAIM ? eviction.preemptor() : null)),
                EvictionAnnotations.times(eviction.history().reclaimedAt()),
                EvictionAnnotations.times(eviction.history().timedOutAt()));
        Map<String, String> signed = fields.asAnnotations();
        signed.remove(Annotations.ADMITTED_AT); // tested above: it holds this value
        signed.put(Annotations.RECORD_SIGNATURE, signatures.sign(uid, fields));
        JsonPatchOps.addAnnotations(ops, true, signed);
        return ops;
    }
}
