package io.kubequeue.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.kubequeue.scheduler.model.Hold;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.JobPriority;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.scheduler.model.JobStatus;
import io.kubequeue.scheduler.model.QuotaNode;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.scheduler.model.SchedulerSettings;

/**
 * The label {@code quota.scheduling.alibabacloud.com/name} is honoured only for the group that lists the job's
 * namespace or a group below it (issue 25, found in review): before, a tenant of team-a could label its job into root
 * (taking root's whole room, so no team was admitted any more) or into team-b's group (taking team-b's quota).
 */
class LabelRoutingTest {

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
                new QuotaNode("team-a.gpu", "team-a", List.of(), null, Resources.of("cpu", 2000L)),
                new QuotaNode("team-b", "root", List.of("b"), null, Resources.of("cpu", 4000L)))));
    }

    private void observe(String namespace, String name, JobObservation.Phase phase, long cpu, String label) {
        scheduler.observe(new JobObservation(new JobKey("Job", namespace, name), "u-" + name, phase,
                Resources.of("cpu", cpu), JobPriority.NONE, T0, label, true, null, "1"));
    }

    private List<String> admitted() {
        clock.advance(Duration.ofMinutes(1));
        return scheduler.schedule().admissions().stream().map(a -> a.key().name()).sorted().toList();
    }

    private JobStatus status(String namespace, String name) {
        return scheduler.status(new JobKey("Job", namespace, name)).orElseThrow();
    }

    @Test
    void aLabelIntoRootOrAnotherTeamsGroupGivesNoGroupAndSaysWhy() {
        observe("a", "into-root", JobObservation.Phase.QUEUED, 8000, "root");
        observe("a", "into-b", JobObservation.Phase.QUEUED, 4000, "team-b");
        observe("b", "b-job", JobObservation.Phase.QUEUED, 4000, null);
        assertEquals(List.of("b-job"), admitted(), "team-a's labelled jobs take neither root's nor team-b's room");
        for (String name : List.of("into-root", "into-b")) {
            JobStatus s = status("a", name);
            assertEquals(JobState.HELD, s.state(), name);
            assertEquals(Hold.Reason.NO_QUOTA_GROUP, s.hold().kind(), name);
            assertTrue(s.hold().reason().toString().contains("is not open to namespace a: the label may name only"
                    + " quota group team-a, which lists the namespace, or a group below it"), s.hold().reason().toString());
        }
    }

    @Test
    void aLabelIntoTheNamespacesOwnSubtreeIsHonoured() {
        observe("a", "gpu-job", JobObservation.Phase.QUEUED, 2000, "team-a.gpu");
        assertEquals(List.of("gpu-job"), admitted());
        assertEquals("team-a.gpu", status("a", "gpu-job").group());
    }

    @Test
    void aJobStartedOutsideWithARefusedLabelIsChargedInItsNamespacesGroup() {
        observe("a", "outside", JobObservation.Phase.UNSUSPENDED_WITHOUT_RECORD, 100_000, "root");
        observe("a", "outside", JobObservation.Phase.QUEUED, 100_000, "root"); // queued first, then started by hand
        observe("a", "outside", JobObservation.Phase.UNSUSPENDED_WITHOUT_RECORD, 100_000, "root");
        assertEquals("team-a", status("a", "outside").group(), "charged where its team's quota is, not in root");
        observe("b", "b-job", JobObservation.Phase.QUEUED, 4000, null);
        assertEquals(List.of("b-job"), admitted(), "counted at root only up to team-a's max");
    }

    /**
     * Sequence 3 through the label (found in review): a running job of unknown use holds only its own group; labelled
     * root, it held root, and every team with it. The label is not open to its namespace, so it is charged to team-a.
     */
    @Test
    void aRunningJobOfUnknownUseLabelledRootHoldsOnlyItsNamespacesGroup() {
        scheduler.observeUnreadable(new JobObservation(new JobKey("Job", "a", "unreadable"), "u-unreadable",
                JobObservation.Phase.STARTED_DESPITE_MARK, Resources.NONE, JobPriority.NONE, T0, "root", true, null,
                null));
        assertEquals("team-a", status("a", "unreadable").group());
        observe("b", "b-job", JobObservation.Phase.QUEUED, 1000, null);
        assertEquals(List.of("b-job"), admitted(), scheduler.pending("team-b").isEmpty() ? ""
                : scheduler.pending("team-b").get(0).reason().toString());
    }
}
