package io.kubequeue.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.ObjectReference;
import io.kubequeue.job.JobDirectory;
import io.kubequeue.job.RecordFields;
import io.kubequeue.job.RecordSignatures;
import io.kubequeue.job.SuspendMark;
import io.kubequeue.scheduler.model.Admission;
import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.testing.TrustedRecords;

/**
 * The admission JSON Patch: a test op on the uid decided for, a test op on each mark before it goes, then the admission record, which a job without
 * annotations gets as a whole map (bound to the version seen). That the patches apply on a strict RFC 6902 server
 * is checked end to end in {@code operator.AdmissionPatchesTest}.
 */
class AdmissionPatchTest {

    private static final Admission ADMISSION = new Admission(new JobKey("Job", "default", "j"), "u1",
            new AdmissionRecord("root.a", "2026-01-01T00:00:00.123Z"), Resources.of("cpu", 1000L), 0);
    private static final RecordSignatures SIGNATURES = TrustedRecords.signatures();
    /** The request decided, as the record carries it (a restart charges a running job at least that). */
    private static final String ADMITTED_REQUEST = "{\"cpu\":\"1\"}";

    /** The signature of the admission's record with these histories, on job u1. */
    private static String signature(String reclaimedAt, String timedOutAt) {
        return SIGNATURES.sign("u1", new RecordFields("root.a", "2026-01-01T00:00:00.123Z", "", "", reclaimedAt,
                timedOutAt, ADMITTED_REQUEST));
    }

    @Test
    void annotationAndSpecSuspendAreEachTestedThenRemoved() {
        JobDirectory.Entry entry = new JobDirectory.Entry(null, new ObjectReference(),
                List.of(SuspendMark.ANNOTATION, SuspendMark.SPEC_SUSPEND), true, "7");
        assertEquals("["
                + "{\"op\":\"test\",\"path\":\"/metadata/uid\",\"value\":\"u1\"},"
                + "{\"op\":\"test\",\"path\":\"/metadata/annotations/scheduling.x-k8s.io~1suspend\",\"value\":\"true\"},"
                + "{\"op\":\"remove\",\"path\":\"/metadata/annotations/scheduling.x-k8s.io~1suspend\"},"
                + "{\"op\":\"test\",\"path\":\"/spec/suspend\",\"value\":true},"
                + "{\"op\":\"replace\",\"path\":\"/spec/suspend\",\"value\":false},"
                + "{\"op\":\"add\",\"path\":\"/metadata/annotations/kube-queue~1quota-group\",\"value\":\"root.a\"},"
                + "{\"op\":\"add\",\"path\":\"/metadata/annotations/kube-queue~1admitted-at\",\"value\":\"2026-01-01T00:00:00.123Z\"},"
                + "{\"op\":\"add\",\"path\":\"/metadata/annotations/kube-queue~1evicted\",\"value\":\"\"},"
                + "{\"op\":\"add\",\"path\":\"/metadata/annotations/kube-queue~1evicted-for\",\"value\":\"\"},"
                + "{\"op\":\"add\",\"path\":\"/metadata/annotations/kube-queue~1reclaimed-at\",\"value\":\"\"},"
                + "{\"op\":\"add\",\"path\":\"/metadata/annotations/kube-queue~1timed-out-at\",\"value\":\"\"},"
                + "{\"op\":\"add\",\"path\":\"/metadata/annotations/kube-queue~1admitted-request\",\"value\":\"{\\\"cpu\\\":\\\"1\\\"}\"},"
                + "{\"op\":\"add\",\"path\":\"/metadata/annotations/kube-queue~1record-signature\",\"value\":\""
                + signature("", "") + "\"}"
                + "]", AdmissionPatch.of(entry, ADMISSION, SIGNATURES).toString());
    }

    @Test
    void aJobWithoutAnnotationsGetsTheWholeMapOnlyIfUnchangedSinceSeen() {
        JobDirectory.Entry entry = new JobDirectory.Entry(null, new ObjectReference(),
                List.of(SuspendMark.RUN_POLICY_SUSPEND), false, "7");
        assertEquals("["
                + "{\"op\":\"test\",\"path\":\"/metadata/uid\",\"value\":\"u1\"},"
                + "{\"op\":\"test\",\"path\":\"/metadata/resourceVersion\",\"value\":\"7\"},"
                + "{\"op\":\"test\",\"path\":\"/spec/runPolicy/suspend\",\"value\":true},"
                + "{\"op\":\"replace\",\"path\":\"/spec/runPolicy/suspend\",\"value\":false},"
                + "{\"op\":\"add\",\"path\":\"/metadata/annotations\",\"value\":"
                + "{\"kube-queue/quota-group\":\"root.a\",\"kube-queue/admitted-at\":\"2026-01-01T00:00:00.123Z\","
                + "\"kube-queue/evicted\":\"\",\"kube-queue/evicted-for\":\"\",\"kube-queue/reclaimed-at\":\"\","
                + "\"kube-queue/timed-out-at\":\"\",\"kube-queue/admitted-request\":\"{\\\"cpu\\\":\\\"1\\\"}\","
                + "\"kube-queue/record-signature\":\"" + signature("", "") + "\"}}"
                + "]", AdmissionPatch.of(entry, ADMISSION, SIGNATURES).toString());
    }

    @Test
    void aJobKubeQueueEvictedIsNoLongerMarkedAsSuspendedByItOnceAdmittedAgain_theHistoryItWroteStays() {
        JobDirectory.Entry evicted = new JobDirectory.Entry(null, new ObjectReference(),
                List.of(SuspendMark.SPEC_SUSPEND), true, "9", SuspendMark.SPEC_SUSPEND, true,
                new RecordFields.History("2026-01-01T00:10:00Z", ""));
        assertEquals("["
                + "{\"op\":\"test\",\"path\":\"/metadata/uid\",\"value\":\"u1\"},"
                + "{\"op\":\"test\",\"path\":\"/spec/suspend\",\"value\":true},"
                + "{\"op\":\"replace\",\"path\":\"/spec/suspend\",\"value\":false},"
                + "{\"op\":\"add\",\"path\":\"/metadata/annotations/kube-queue~1quota-group\",\"value\":\"root.a\"},"
                + "{\"op\":\"add\",\"path\":\"/metadata/annotations/kube-queue~1admitted-at\",\"value\":\"2026-01-01T00:00:00.123Z\"},"
                + "{\"op\":\"add\",\"path\":\"/metadata/annotations/kube-queue~1evicted\",\"value\":\"\"},"
                + "{\"op\":\"add\",\"path\":\"/metadata/annotations/kube-queue~1evicted-for\",\"value\":\"\"},"
                + "{\"op\":\"add\",\"path\":\"/metadata/annotations/kube-queue~1reclaimed-at\",\"value\":\"2026-01-01T00:10:00Z\"},"
                + "{\"op\":\"add\",\"path\":\"/metadata/annotations/kube-queue~1timed-out-at\",\"value\":\"\"},"
                + "{\"op\":\"add\",\"path\":\"/metadata/annotations/kube-queue~1admitted-request\",\"value\":\"{\\\"cpu\\\":\\\"1\\\"}\"},"
                + "{\"op\":\"add\",\"path\":\"/metadata/annotations/kube-queue~1record-signature\",\"value\":\""
                + signature("2026-01-01T00:10:00Z", "") + "\"}"
                + "]", AdmissionPatch.of(evicted, ADMISSION, SIGNATURES).toString());
    }
}
