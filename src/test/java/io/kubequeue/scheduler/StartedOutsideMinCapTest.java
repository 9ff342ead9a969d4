package io.kubequeue.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
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
 * Issue 25 review, the started-outside cap on the min side: the seed's tree declares a {@code min} at root as well
 * as a {@code max}, and a non-preemptible job must fit both. A tenant of team-a starts a non-preemptible 100-cpu job
 * by hand. The cap counts it at root only up to team-a's max, but root's non-preemptible usage counted it in full,
 * so root's min (8) admitted no non-preemptible job of team-b any more: one team's job still stopped the others. A
 * group's started-outside non-preemptible charges now count above it only as far as the group's min leaves room, as
 * its max does for the max check.
 */
class StartedOutsideMinCapTest {

    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    MutableClock clock;
    Scheduler scheduler;

    @BeforeEach
    void start() {
        clock = new MutableClock(T0);
        scheduler = new Scheduler(SchedulerSettings.defaults(), clock);
        scheduler.replaceTree(new QuotaTree(List.of(
                new QuotaNode("root", null, List.of(), Resources.of("cpu", 8000L), Resources.of("cpu", 8000L)),
                new QuotaNode("team-a", "root", List.of("a"), Resources.of("cpu", 4000L), Resources.of("cpu", 4000L)),
                new QuotaNode("team-b", "root", List.of("b"), Resources.of("cpu", 4000L),
                        Resources.of("cpu", 4000L)))));
    }

    private void observe(String namespace, String name, JobObservation.Phase phase, long cpu, AdmissionRecord record) {
        scheduler.observe(new JobObservation(new JobKey("Job", namespace, name), "u-" + name, phase,
                Resources.of("cpu", cpu), JobPriority.NONE, T0, null, false, record, "1"));
    }

    private List<String> admitted() {
        clock.advance(Duration.ofMinutes(1));
        return scheduler.schedule().admissions().stream().map(a -> a.key().name()).sorted().toList();
    }

    @Test
    void aHugeNonPreemptibleJobStartedOutsideStopsOnlyItsOwnGroup() {
        observe("a", "huge", JobObservation.Phase.STARTED_DESPITE_MARK, 100_000, null);
        assertEquals(100_000, scheduler.guaranteedUsage("team-a").get("cpu"), "charged in full in its own group");
        observe("a", "a-more", JobObservation.Phase.QUEUED, 1000, null);
        observe("b", "b-job", JobObservation.Phase.QUEUED, 4000, null);
        assertEquals(List.of("b-job"), admitted(), "root's min counts team-a at its min 4 and has 4 left for team-b: "
                + scheduler.pending("team-b"));
        observe("b", "b-more", JobObservation.Phase.QUEUED, 1000, null);
        assertEquals(List.of(), admitted(), "root's min: team-a 4 + team-b 4 = 8 of 8");
    }

    @Test
    void theSameAfterARestartFromTheRecordKubeQueueWrote() {
        observe("a", "huge", JobObservation.Phase.ADMITTED, 100_000,
                new AdmissionRecord("team-a", AdmissionRecord.STARTED_OUTSIDE));
        observe("b", "b-job", JobObservation.Phase.QUEUED, 4000, null);
        assertEquals(List.of("b-job"), admitted());
    }
}
