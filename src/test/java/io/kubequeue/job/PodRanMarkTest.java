package io.kubequeue.job;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.testing.TrustedRecords;

/** The pod-ran mark (docs/security.md, "The pod-ran mark"): only kube-queue's, for this job and this record, counts. */
class PodRanMarkTest {

    private final RecordSignatures signatures = TrustedRecords.signatures();
    private final AdmissionRecord record = new AdmissionRecord("root.a", "2026-12-01T10:00:00.000Z");

    @Test
    void theMarkCountsForItsJobAndItsRecordOnly() {
        String mark = signatures.podRanMark("uid-1", record);
        assertTrue(mark.startsWith("2026-12-01T10:00:00.000Z v1."), mark);
        assertTrue(signatures.podRanUnder("uid-1", record, mark));
        assertFalse(signatures.podRanUnder("uid-2", record, mark), "copied to another job");
        assertFalse(signatures.podRanUnder("uid-1", new AdmissionRecord("root.a", "2026-12-01T11:00:00.000Z"), mark),
                "left from an earlier admission");
        assertFalse(signatures.podRanUnder("uid-1", new AdmissionRecord("root.b", record.admittedAt()), mark),
                "another group's record");
        assertFalse(TrustedRecords.signatures("another key of 32 bytes at least!".getBytes())
                .podRanUnder("uid-1", record, mark), "another key");
    }

    @Test
    void aMarkWrittenByHandOrDamagedCountsForNothing() {
        String mark = signatures.podRanMark("uid-1", record);
        for (String forged : new String[] {"", "true", record.admittedAt(), record.admittedAt() + " v1.",
                record.admittedAt() + " v1.AAAA", record.admittedAt() + " v1.!!not base64!!", mark + "x",
                mark.substring(0, mark.length() - 1), " " + mark, record.admittedAt() + " " + "v1." + "A".repeat(5000)}) {
            assertFalse(signatures.podRanUnder("uid-1", record, forged), forged);
        }
        assertFalse(signatures.podRanUnder("uid-1", record, null));
        assertFalse(signatures.podRanUnder("uid-1", new AdmissionRecord("root.a", AdmissionRecord.STARTED_OUTSIDE),
                signatures.podRanMark("uid-1", new AdmissionRecord("root.a", AdmissionRecord.STARTED_OUTSIDE))),
                "a job started outside kube-queue has no admission to time out");
    }
}
