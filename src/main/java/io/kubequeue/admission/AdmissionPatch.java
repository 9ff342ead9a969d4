package io.kubequeue.admission;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.kubequeue.job.Annotations;
import io.kubequeue.job.JobDirectory;
import io.kubequeue.job.SuspendMark;
import io.kubequeue.scheduler.Admission;

/**
 * The admission patch, the one write kube-queue makes to a job (see {@link Admitter}): built here so that its shape,
 * which a real API server must accept (../shared/reference/real-apiserver.md, "JSON Patch"), is read and tested in
 * one place.
 */
final class AdmissionPatch {

    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    private AdmissionPatch() {
    }

    /**
     * The JSON Patch (RFC 6902) for one admission, as a real API server applies it to the job as stored: a {@code test} of the uid the decision was made for (a namesake created since refuses it), a
     * {@code test} and a removal for each mark, then the admission record. A job with annotations
     * gets the record's two keys added to its map; one without gets the map added whole, since an {@code add}
     * whose parent is missing is refused (422). Adding the whole map would replace annotations written since the
     * job was seen, so that patch first tests the job's {@code resourceVersion}: a job changed meanwhile refuses
     * it (422) and is retried as it is now.
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
