package io.kubequeue.admission;

import static org.junit.jupiter.api.Assertions.assertFalse;

import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.kubequeue.job.SuspendMark;
import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.Eviction;
import io.kubequeue.scheduler.model.EvictionMarks;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.testing.TrustedRecords;

/**
 * Issue 25 review, reasons per reader: the {@code Reclaimed} event on a reclaim's victim names its preemptor only to
 * readers of the preemptor's namespace (docs/security.md, "Reasons per reader"), but the eviction patch wrote the
 * preemptor's {@code Kind/namespace/name} into annotation {@code kube-queue/evicted-for} on the victim, which the
 * victim's team reads with {@code kubectl get -o yaml}: every reclaim told one team the name of another team's job.
 * The value is now sealed with the record key ({@code RecordSignatures#seal}), and a restarted leader opens it.
 */
class EvictionMarksPerReaderTest {

    @Test
    void theVictimOfAReclaimIsNotToldTheNameOfAnotherTeamsPreemptor() {
        JobKey victim = new JobKey("Job", "team-b", "etl-7");
        JobKey preemptor = new JobKey("TFJob", "team-a", "secret-project");
        Instant at = Instant.parse("2026-01-01T00:30:00Z");
        Eviction reclaim = new Eviction(victim, "u1", new AdmissionRecord("root.b", "2026-01-01T00:00:00.123Z"),
                Eviction.Reason.RECLAIM, preemptor, "root.a", Resources.of("cpu", 2000L), at,
                new EvictionMarks(Eviction.Reason.RECLAIM, preemptor, List.of(at), List.of()));

        String patch = EvictionPatch.of(SuspendMark.SPEC_SUSPEND, reclaim, "u1", TrustedRecords.signatures()).toString();

        assertFalse(patch.contains("secret-project") || patch.contains("team-a/"),
                "written on team-b's job, readable by team-b: " + patch);
    }
}
