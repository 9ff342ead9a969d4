package io.kubequeue.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.JobPriority;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.scheduler.model.PendingView;
import io.kubequeue.scheduler.model.QuotaNode;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.scheduler.model.SchedulerSettings;
import io.kubequeue.scheduler.model.Unreadable;

/**
 * Issue 25, sequence 3: one team's running job whose request becomes unreadable, then a restart: the job is charged
 * as unknown. It holds its own group, and an ancestor only for the resources no group between them limits; an
 * ancestor counts the unknown group at that group's max. Before the fix its group <em>and every ancestor with a
 * limit, root included</em> admitted nothing while it ran, which stopped teams that have nothing to do with it.
 *
 * <p>The tree declares several resources, as the seed's does: root (cpu 8, memory 32Gi) over team-a and team-b
 * (cpu 4, memory 16Gi each), and team-c with a max on cpu only.
 */
class UnknownUseTest {

    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    static final long GI = 1L << 30;

    MutableClock clock;
    Scheduler scheduler;

    @BeforeEach
    void start() {
        clock = new MutableClock(T0);
        scheduler = new Scheduler(SchedulerSettings.defaults(), clock);
        scheduler.replaceTree(new QuotaTree(List.of(
                new QuotaNode("root", null, List.of(), null, Resources.of(Map.of("cpu", 8000L, "memory", 32 * GI))),
                new QuotaNode("team-a", "root", List.of("a"), null,
                        Resources.of(Map.of("cpu", 4000L, "memory", 16 * GI))),
                new QuotaNode("team-b", "root", List.of("b"), null,
                        Resources.of(Map.of("cpu", 4000L, "memory", 16 * GI))),
                new QuotaNode("team-c", "root", List.of("c"), null, Resources.of("cpu", 2000L)))));
    }

    /** After a restart: a running job of {@code namespace} with our record whose request cannot be read. */
    private void unknownRunning(String namespace, String group) {
        Unreadable outcome = scheduler.observeUnreadable(new JobObservation(
                new JobKey("Workflow", namespace, "broken"), "u-broken", JobObservation.Phase.ADMITTED, Resources.NONE,
                JobPriority.NONE, T0, null, true, new AdmissionRecord(group, "2025-12-31T00:00:00.000Z"), "1"));
        assertEquals(Unreadable.HOLDS_GROUP, outcome);
    }

    private void queue(String namespace, String name, Resources request) {
        scheduler.observe(new JobObservation(new JobKey("Job", namespace, name), "u-" + name,
                JobObservation.Phase.QUEUED, request, JobPriority.NONE, T0, null, true, null, "2"));
    }

    private List<String> admittedNames() {
        return scheduler.schedule().admissions().stream().map(a -> a.key().name()).sorted().toList();
    }

    @Test
    void anotherTeamUnderTheSameRootIsStillAdmitted() {
        unknownRunning("b", "team-b");
        queue("a", "a-job", Resources.of(Map.of("cpu", 3000L, "memory", 8 * GI)));
        queue("b", "b-job", Resources.of("cpu", 1000L));
        assertEquals(List.of("a-job"), admittedNames(),
                "team-b's max bounds the unknown job: root counts team-b at its max (4 cpu, 16Gi) and has room for"
                        + " team-a; team-b itself admits nothing");
        PendingView held = scheduler.pending("team-b").get(0);
        assertTrue(held.reason().toString().contains("quota group team-b admits nothing now"), held.reason().toString());
    }

    @Test
    void theAncestorCountsTheUnknownGroupAtItsMax() {
        unknownRunning("b", "team-b");
        queue("a", "a-big", Resources.of("cpu", 4000L)); // root: team-b at 4 + 4 = 8 of 8: fits
        assertEquals(List.of("a-big"), admittedNames());
        queue("c", "c-job", Resources.of("cpu", 1000L)); // root: 4 (b at max) + 4 + 1 > 8: does not fit
        assertEquals(List.of(), admittedNames(), "root has no room left once team-b counts at its max");
        PendingView waiting = scheduler.pending("team-c").get(0);
        String reason = waiting.reason().toString();
        assertTrue(reason.startsWith("cpu: request 1, in use 8 of max 8 in quota group root"), reason);
        assertTrue(reason.contains("quota group team-b counted at 4, as much as its limits let it use: admitted job"
                + " Workflow b/broken runs with a request kube-queue cannot read"), reason);
    }

    @Test
    void aResourceTheUnknownGroupDoesNotLimitHoldsTheAncestorForThatResourceOnly() {
        unknownRunning("c", "team-c"); // team-c limits cpu only: its memory use is unbounded below root
        queue("a", "a-cpu", Resources.of("cpu", 1000L));
        queue("a", "a-memory", Resources.of(Map.of("cpu", 1000L, "memory", GI)));
        assertEquals(List.of("a-cpu"), admittedNames(),
                "root holds memory (team-c's memory use is unknown and unbounded) but not cpu (team-c's max bounds it)");
        String reason = scheduler.pending("team-a").get(0).reason().toString();
        assertTrue(reason.contains("memory") && reason.contains("Workflow c/broken"), reason);
    }

    @Test
    void theUnknownJobReadableAgainIsChargedWhatItAsks() {
        unknownRunning("b", "team-b");
        queue("a", "a-job", Resources.of("cpu", 4000L));
        queue("c", "c-job", Resources.of("cpu", 1000L));
        assertEquals(List.of("a-job"), admittedNames(), "4 (team-b at its max) + 4 of 8: c-job must wait");
        scheduler.observe(new JobObservation(new JobKey("Workflow", "b", "broken"), "u-broken",
                JobObservation.Phase.ADMITTED, Resources.of("cpu", 1000L), JobPriority.NONE, T0, null, true,
                new AdmissionRecord("team-b", "2025-12-31T00:00:00.000Z"), "3"));
        clock.advance(java.time.Duration.ofMinutes(1)); // c-job's backoff is over
        assertEquals(List.of("c-job"), admittedNames(), "team-b now uses 1: 1 + 4 + 1 ≤ 8");
    }

    /**
     * A group between the unknown groups and the root caps them together: dept (cpu 5) over team-x and team-y (cpu 4
     * each, both of unknown use) counts at 5 at root, not 4 + 4.
     */
    @Test
    void aGroupAboveSeveralUnknownGroupsCapsThemWithItsOwnMax() {
        scheduler.replaceTree(new QuotaTree(List.of(
                new QuotaNode("root", null, List.of(), null, Resources.of("cpu", 8000L)),
                new QuotaNode("dept", "root", List.of(), null, Resources.of("cpu", 5000L)),
                new QuotaNode("team-x", "dept", List.of("x"), null, Resources.of("cpu", 4000L)),
                new QuotaNode("team-y", "dept", List.of("y"), null, Resources.of("cpu", 4000L)),
                new QuotaNode("team-a", "root", List.of("a"), null, Resources.of("cpu", 4000L)))));
        unknownRunning("x", "team-x");
        unknownRunning("y", "team-y");
        queue("a", "a-3", Resources.of("cpu", 3000L));
        assertEquals(List.of("a-3"), admittedNames(), "root: dept at 5 + 3 ≤ 8");
        queue("a", "a-1", Resources.of("cpu", 1000L));
        assertEquals(List.of(), admittedNames(), "root: 5 + 3 + 1 > 8");
    }

    /** A non-preemptible request's min check counts the non-preemptible jobs of unknown use the same way. */
    @Test
    void anUnknownNonPreemptibleJobHoldsItsOwnGroupsMinButNotAnotherGroups() {
        scheduler.replaceTree(new QuotaTree(List.of(
                new QuotaNode("root", null, List.of(), Resources.of("cpu", 6000L), Resources.of("cpu", 8000L)),
                new QuotaNode("team-a", "root", List.of("a"), Resources.of("cpu", 3000L), Resources.of("cpu", 4000L)),
                new QuotaNode("team-b", "root", List.of("b"), Resources.of("cpu", 3000L), Resources.of("cpu", 4000L)))));
        assertEquals(Unreadable.HOLDS_GROUP, scheduler.observeUnreadable(new JobObservation(
                new JobKey("Workflow", "b", "broken"), "u-broken", JobObservation.Phase.ADMITTED, Resources.NONE,
                JobPriority.NONE, T0, null, false, new AdmissionRecord("team-b", "2025-12-31T00:00:00.000Z"), "1")));
        scheduler.observe(new JobObservation(new JobKey("Job", "a", "guaranteed"), "u-g", JobObservation.Phase.QUEUED,
                Resources.of("cpu", 2000L), JobPriority.NONE, T0, null, false, null, "2"));
        scheduler.observe(new JobObservation(new JobKey("Job", "b", "guaranteed"), "u-h", JobObservation.Phase.QUEUED,
                Resources.of("cpu", 1000L), JobPriority.NONE, T0, null, false, null, "3"));
        assertEquals(List.of("guaranteed"), admittedNames(),
                "root's min: team-b counted at its max 4 + 2 ≤ 6 admits team-a's; team-b's own min is held");
        assertEquals("a", scheduler.status(new JobKey("Job", "a", "guaranteed")).orElseThrow().key().namespace());
        assertEquals(JobState.ADMITTED, scheduler.status(new JobKey("Job", "a", "guaranteed")).orElseThrow().state());
    }
}
