package io.kubequeue.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.JobPriority;
import io.kubequeue.scheduler.model.QuotaNode;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.scheduler.model.SchedulerSettings;

/**
 * Issue 25, sequence 5 with a large request: a tenant of team-a starts a 100-cpu job outside kube-queue (its mark
 * removed by hand, or a hand-written record kube-queue does not trust). It is charged as started outside in team-a,
 * as it should, and team-a admits nothing more. Before, it counted in full at root too, so root (cpu 8) admitted
 * nothing for anyone: one team stopped every other. Now a group's started-outside charges count above it only as far
 * as the group's max leaves room: root counts team-a at 4, and team-b still gets its 4.
 */
class StartedOutsideCapTest {

    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    MutableClock clock;
    Scheduler scheduler;

    @BeforeEach
    void start() {
        clock = new MutableClock(T0);
        scheduler = new Scheduler(SchedulerSettings.defaults(), clock);
        scheduler.replaceTree(new QuotaTree(List.of(
                new QuotaNode("root", null, List.of(), null, Resources.of("cpu", 8000L)),
                new QuotaNode("team-a", "root", List.of("a"), null, Resources.of("cpu", 4000L)),
                new QuotaNode("team-b", "root", List.of("b"), null, Resources.of("cpu", 4000L)))));
    }

    private void observe(String namespace, String name, JobObservation.Phase phase, long cpu, AdmissionRecord record) {
        scheduler.observe(new JobObservation(new JobKey("Job", namespace, name), "u-" + name, phase,
                Resources.of("cpu", cpu), JobPriority.NONE, T0, null, true, record, "1"));
    }

    private List<String> admitted() {
        return scheduler.schedule().admissions().stream().map(a -> a.key().name()).sorted().toList();
    }

    @Test
    void aHugeJobStartedOutsideStopsOnlyItsOwnGroup() {
        observe("a", "huge", JobObservation.Phase.QUEUED, 100_000, null);
        observe("a", "huge", JobObservation.Phase.UNSUSPENDED_WITHOUT_RECORD, 100_000, null); // started by hand
        assertTrue(scheduler.status(new JobKey("Job", "a", "huge")).orElseThrow().record().startedOutside());
        assertEquals(100_000, scheduler.usage("team-a").get("cpu"), "charged in its own group, in full");
        observe("a", "a-more", JobObservation.Phase.QUEUED, 1000, null);
        observe("b", "b-job", JobObservation.Phase.QUEUED, 4000, null);
        assertEquals(List.of("b-job"), admitted(), "root counts team-a at its max 4 and has 4 left for team-b");
        observe("b", "b-more", JobObservation.Phase.QUEUED, 1000, null);
        clock.advance(java.time.Duration.ofMinutes(1));
        assertEquals(List.of(), admitted(), "root: team-a 4 (its max) + team-b 4 = 8 of 8");
        String reason = scheduler.pending("team-b").get(0).reason().toString();
        assertTrue(reason.startsWith("cpu: request 1, in use 4 of max 4 in quota group team-b"), reason);
    }

    @Test
    void aRecordTheStartedOutsideJobCarriesAfterARestartIsCappedTheSameWay() {
        observe("a", "huge", JobObservation.Phase.ADMITTED, 100_000,
                new AdmissionRecord("team-a", AdmissionRecord.STARTED_OUTSIDE));
        observe("b", "b-job", JobObservation.Phase.QUEUED, 3000, null);
        assertEquals(List.of("b-job"), admitted());
    }

    @Test
    void kubeQueuesOwnAdmissionsAboveAShrunkMaxStillCountInFull() {
        observe("a", "admitted", JobObservation.Phase.ADMITTED, 4000, new AdmissionRecord("team-a",
                "2025-12-31T00:00:00.000Z"));
        observe("b", "b-admitted", JobObservation.Phase.ADMITTED, 2000, new AdmissionRecord("team-b",
                "2025-12-31T00:00:00.000Z"));
        // the administrator lowers team-a's max: what kube-queue admitted there still runs, and root is full
        scheduler.replaceTree(new QuotaTree(List.of(
                new QuotaNode("root", null, List.of(), null, Resources.of("cpu", 8000L)),
                new QuotaNode("team-a", "root", List.of("a"), null, Resources.of("cpu", 2000L)),
                new QuotaNode("team-b", "root", List.of("b"), null, Resources.of("cpu", 4000L)))));
        observe("b", "b-job", JobObservation.Phase.QUEUED, 2000, null);
        assertEquals(List.of("b-job"), admitted(), "4 + 2 + 2 = 8 of 8");
        observe("b", "b-more", JobObservation.Phase.QUEUED, 1000, null);
        clock.advance(java.time.Duration.ofMinutes(1));
        assertEquals(List.of(), admitted(), "team-a's 4 admitted by kube-queue count in full at root: 8 of 8 is full");
    }

    @Test
    void theCapFollowsTheGroupsRoomAsItsOtherJobsComeAndGo() {
        observe("a", "kq", JobObservation.Phase.ADMITTED, 3000, new AdmissionRecord("team-a", "2025-12-31T00:00:00.000Z"));
        observe("a", "outside", JobObservation.Phase.ADMITTED, 5000,
                new AdmissionRecord("team-a", AdmissionRecord.STARTED_OUTSIDE));
        observe("b", "b-job", JobObservation.Phase.QUEUED, 4000, null);
        assertEquals(List.of("b-job"), admitted(), "team-a counts 3 + 1 (the room its max left) = 4 at root");
        scheduler.observe(JobObservation.finished(new JobKey("Job", "a", "kq"), "u-kq"));
        observe("b", "b-more", JobObservation.Phase.QUEUED, 1000, null);
        clock.advance(java.time.Duration.ofMinutes(1));
        assertEquals(List.of(), admitted(), "kq gone: the started-outside job now fills team-a's 4 at root");
    }
}
