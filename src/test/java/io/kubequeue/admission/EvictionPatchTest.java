package io.kubequeue.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.kubequeue.job.RecordFields;
import io.kubequeue.job.RecordSignatures;
import io.kubequeue.job.SuspendMark;
import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.Eviction;
import io.kubequeue.scheduler.model.EvictionMarks;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.testing.TrustedRecords;

/**
 * The eviction JSON Patch: tests of the uid and of the admission the decision was made about, the stop mark set,
 * then the four eviction annotations, the admission record left in place. That it applies on a strict RFC 6902
 * server, for every kind that can be evicted: {@code EvictionPatchOnStrictServerTest}.
 */
class EvictionPatchTest {

    private static final JobKey VICTIM = new JobKey("Job", "team-b", "etl-7");
    private static final AdmissionRecord RECORD = new AdmissionRecord("root.b", "2026-01-01T00:00:00.123Z");
    private static final Instant AT = Instant.parse("2026-01-01T00:30:00Z");
    private static final RecordSignatures SIGNATURES = TrustedRecords.signatures();

    @Test
    void aReclaimTestsUidAndAdmissionThenSetsSpecSuspendAndWritesWhyForWhomAndTheHistory() {
        Eviction reclaim = new Eviction(VICTIM, "u1", RECORD, Eviction.Reason.RECLAIM,
                new JobKey("TFJob", "team-a", "train-1"), "root.a", Resources.of("cpu", 2000L), AT,
                new EvictionMarks(Eviction.Reason.RECLAIM, new JobKey("TFJob", "team-a", "train-1"),
                        List.of(Instant.parse("2026-01-01T00:10:00Z"), AT), List.of(Instant.parse("2026-01-01T00:05:00.5Z"))));
        com.fasterxml.jackson.databind.node.ArrayNode patch = EvictionPatch.of(SuspendMark.SPEC_SUSPEND, reclaim,
                "ignored: the decision names u1", SIGNATURES);
        // the preemptor is sealed for the victim u1 (its team reads this annotation): random each time, opened by
        // kube-queue's key only
        String sealed = patch.get(5).get("value").asText();
        assertEquals("TFJob/team-a/train-1", TrustedRecords.opened("u1", sealed));
        assertEquals(null, TrustedRecords.opened("u2", sealed), "sealed for u1 only");
        assertEquals("["
                + "{\"op\":\"test\",\"path\":\"/metadata/uid\",\"value\":\"u1\"},"
                + "{\"op\":\"test\",\"path\":\"/metadata/annotations/kube-queue~1admitted-at\",\"value\":\"2026-01-01T00:00:00.123Z\"},"
                + "{\"op\":\"add\",\"path\":\"/spec/suspend\",\"value\":true},"
                + "{\"op\":\"add\",\"path\":\"/metadata/annotations/kube-queue~1quota-group\",\"value\":\"root.b\"},"
                + "{\"op\":\"add\",\"path\":\"/metadata/annotations/kube-queue~1evicted\",\"value\":\"reclaim\"},"
                + "{\"op\":\"add\",\"path\":\"/metadata/annotations/kube-queue~1evicted-for\",\"value\":\"" + sealed + "\"},"
                + "{\"op\":\"add\",\"path\":\"/metadata/annotations/kube-queue~1reclaimed-at\",\"value\":\"2026-01-01T00:10:00Z,2026-01-01T00:30:00Z\"},"
                + "{\"op\":\"add\",\"path\":\"/metadata/annotations/kube-queue~1timed-out-at\",\"value\":\"2026-01-01T00:05:00.500Z\"},"
                // the admission is over once the stop mark lands: its admitted request goes with it
                + "{\"op\":\"add\",\"path\":\"/metadata/annotations/kube-queue~1admitted-request\",\"value\":\"\"},"
                + "{\"op\":\"add\",\"path\":\"/metadata/annotations/kube-queue~1record-signature\",\"value\":\""
                + SIGNATURES.sign("u1", new RecordFields("root.b", "2026-01-01T00:00:00.123Z", "reclaim",
                        sealed, "2026-01-01T00:10:00Z,2026-01-01T00:30:00Z", "2026-01-01T00:05:00.500Z"))
                + "\"}"
                + "]", patch.toString());
    }

    @Test
    void aTimeoutWithoutUidSetsRunPolicySuspendAndNamesNoPreemptor() {
        Eviction timeout = new Eviction(VICTIM, null, RECORD, Eviction.Reason.TIMEOUT, null, null, Resources.NONE, AT,
                new EvictionMarks(Eviction.Reason.TIMEOUT, null, List.of(), List.of(AT)));
        assertEquals("["
                + "{\"op\":\"test\",\"path\":\"/metadata/annotations/kube-queue~1admitted-at\",\"value\":\"2026-01-01T00:00:00.123Z\"},"
                + "{\"op\":\"add\",\"path\":\"/spec/runPolicy/suspend\",\"value\":true},"
                + "{\"op\":\"add\",\"path\":\"/metadata/annotations/kube-queue~1quota-group\",\"value\":\"root.b\"},"
                + "{\"op\":\"add\",\"path\":\"/metadata/annotations/kube-queue~1evicted\",\"value\":\"timeout\"},"
                + "{\"op\":\"add\",\"path\":\"/metadata/annotations/kube-queue~1evicted-for\",\"value\":\"\"},"
                + "{\"op\":\"add\",\"path\":\"/metadata/annotations/kube-queue~1reclaimed-at\",\"value\":\"\"},"
                + "{\"op\":\"add\",\"path\":\"/metadata/annotations/kube-queue~1timed-out-at\",\"value\":\"2026-01-01T00:30:00Z\"},"
                // the admission is over once the stop mark lands: its admitted request goes with it
                + "{\"op\":\"add\",\"path\":\"/metadata/annotations/kube-queue~1admitted-request\",\"value\":\"\"},"
                + "{\"op\":\"add\",\"path\":\"/metadata/annotations/kube-queue~1record-signature\",\"value\":\""
                + SIGNATURES.sign("seen-uid", new RecordFields("root.b", "2026-01-01T00:00:00.123Z", "timeout", "", "",
                        "2026-01-01T00:30:00Z"))
                + "\"}"
                + "]", EvictionPatch.of(SuspendMark.RUN_POLICY_SUSPEND, timeout, "seen-uid", SIGNATURES).toString());
    }
}
