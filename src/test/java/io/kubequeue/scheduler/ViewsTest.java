package io.kubequeue.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.kubequeue.scheduler.model.Admission;
import io.kubequeue.scheduler.model.CycleResult;
import io.kubequeue.scheduler.model.GroupView;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.JobPriority;
import io.kubequeue.scheduler.model.PendingView;
import io.kubequeue.scheduler.model.QuotaNode;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.scheduler.model.SchedulerSettings;
import io.kubequeue.scheduler.model.SchedulingPolicy;

/** What the read API shows: groups with their numbers, queues in order, and why each job waits. */
class ViewsTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private final MutableClock clock = new MutableClock(T0);

    private Scheduler scheduler(SchedulingPolicy policy) {
        Scheduler s = new Scheduler(new SchedulerSettings(policy, Duration.ofSeconds(1), Duration.ofSeconds(20)), clock);
        s.replaceTree(new QuotaTree(List.of(
                new QuotaNode("root", null, List.of(), null, Resources.of("cpu", 6000L)),
                new QuotaNode("team", "root", List.of("a"), Resources.of("cpu", 1000L), Resources.of("cpu", 4000L)))));
        return s;
    }

    private static JobObservation job(String name, long millicores, int priority, int second, boolean preemptible) {
        return new JobObservation(new JobKey("Job", "a", name), null, JobObservation.Phase.QUEUED,
                Resources.of("cpu", millicores), JobPriority.of(priority), T0.plusSeconds(second), null, preemptible, null);
    }

    @Test
    void aGroupShowsItsLimitsUsageAndCounts() {
        Scheduler s = scheduler(SchedulingPolicy.DEFAULT);
        s.observe(job("running", 3000, 0, 0, true));
        s.schedule();
        s.observe(job("waiting", 2000, 0, 1, true));
        s.observe(job("huge", 9000, 0, 2, true));
        s.schedule();
        GroupView team = s.groups().stream().filter(g -> g.name().equals("team")).findFirst().orElseThrow();
        assertEquals("root", team.parent());
        assertEquals(4000, team.max().get("cpu"));
        assertEquals(1000, team.min().get("cpu"));
        assertEquals(3000, team.used().get("cpu"));
        assertEquals(2, team.pending(), "waiting, and huge held as never fitting");
        assertEquals(1, team.admitted());
        assertEquals(List.of("root", "team"), s.groups().stream().map(GroupView::name).toList());
    }

    @Test
    void theQueueIsInOrderAndEachReasonGivesTheNumbers() {
        Scheduler s = scheduler(SchedulingPolicy.DEFAULT);
        s.observe(job("running", 3000, 0, 0, true));
        s.schedule();
        s.observe(job("low", 2000, 0, 1, true));
        s.observe(job("high", 2000, 5, 2, true));
        s.observe(job("huge", 9000, 0, 4, true));
        s.schedule();
        s.observe(job("new", 500, 0, 5, true));

        List<PendingView> queue = s.pending("team");
        assertEquals(List.of("high", "low", "new", "huge"), queue.stream().map(v -> v.status().key().name()).toList());
        assertEquals(List.of(1, 2, 3, 4), queue.stream().map(PendingView::position).toList());
        assertEquals("cpu: request 2, in use 3 of max 4 in quota group team; backing off until 2026-01-01T00:00:01Z"
                + " (1 try)", queue.get(0).reason().toString());
        assertEquals("fits now; tried in the next cycle", queue.get(2).reason().toString());
        assertTrue(queue.get(3).reason().toString().startsWith("cpu: request 9 exceeds max 4 of quota group team"), queue.get(3).reason().toString());
        for (PendingView v : queue) {
            assertEquals(List.of(v), s.find("a", v.status().key().name()), "one job's view is its place in the queue");
        }

        s.observe(job("more", 1000, 9, 6, true));
        s.schedule(); // more (first by priority) takes the last cpu
        assertEquals("cpu: request 500m, in use 4 of max 4 in quota group team; backing off until 2026-01-01T00:00:01Z"
                + " (1 try)", s.pending("team").get(2).reason().toString());
    }

    @Test
    void aNonPreemptibleJobShowsTheMinThatStopsIt() {
        Scheduler s = scheduler(SchedulingPolicy.DEFAULT);
        s.observe(job("first", 1000, 0, 0, false));
        s.schedule();
        s.observe(job("second", 1000, 0, 1, false));
        s.schedule();
        assertTrue(s.pending("team").get(0).reason().toString().startsWith(
                "cpu: request 1, non-preemptible in use 1 of min 1 in quota group team"), s.pending("team").get(0).reason().toString());
    }

    @Test
    void underTheBlockingQueueAJobBehindTheHeadSaysSo() {
        Scheduler s = scheduler(SchedulingPolicy.BLOCKING_QUEUE);
        s.observe(job("running", 3000, 0, 0, true));
        s.schedule();
        s.observe(job("head", 2000, 0, 1, true));
        s.observe(job("small", 500, 0, 2, true));
        s.schedule();
        List<PendingView> queue = s.pending("team");
        assertTrue(queue.get(0).reason().toString().startsWith("cpu: request 2, in use 3 of max 4"), queue.get(0).reason().toString());
        assertEquals("blocking queue: waits behind the head of quota group team, Job a/head; tried in the next cycle",
                queue.get(1).reason().toString());
        assertEquals(List.of(queue.get(1)), s.find("a", "small"));
    }

    @Test
    void aCycleCountsOnlyWhatItTriedAndAReQueuedJobsWaitStartsAgain() {
        Scheduler s = scheduler(SchedulingPolicy.DEFAULT);
        s.observe(new JobObservation(new JobKey("Job", "nowhere", "lost"), null, JobObservation.Phase.QUEUED,
                Resources.of("cpu", 1L), JobPriority.NONE, T0, null, true, null)); // held when observed
        s.observe(job("huge", 9000, 0, 0, true));
        s.observe(job("running", 3000, 0, 0, true));
        s.observe(job("waiting", 2000, 0, 1, true));
        CycleResult cycle = s.schedule();
        assertEquals(2, cycle.holds().size());
        assertEquals(1, cycle.heldInCycle(), "only huge was tried and held; lost was held when observed");
        assertEquals(1, cycle.notFitting());
        assertEquals(List.of("waiting"), cycle.unschedulable().stream().map(u -> u.key().name()).toList());

        Admission running = cycle.admissions().get(0);
        clock.advance(Duration.ofMinutes(10));
        s.observe(new JobObservation(running.key(), null, JobObservation.Phase.QUEUED, Resources.of("cpu", 3000L),
                JobPriority.of(0), T0, null, true, running.record())); // suspended again
        s.observe(JobObservation.finished(new JobKey("Job", "a", "waiting")));
        s.observe(JobObservation.finished(new JobKey("Job", "a", "huge")));
        assertEquals(T0.plus(Duration.ofMinutes(10)), s.groups().stream().filter(g -> g.name().equals("team"))
                .findFirst().orElseThrow().oldestPendingSince());
    }

    @Test
    void aJobIsFoundByNamespaceAndNameWhateverItsState() {
        Scheduler s = scheduler(SchedulingPolicy.DEFAULT);
        s.observe(job("running", 3000, 0, 0, true));
        s.schedule();
        s.observe(job("waiting", 2000, 0, 1, true));
        s.observe(new JobObservation(new JobKey("Job", "nowhere", "lost"), null, JobObservation.Phase.QUEUED,
                Resources.of("cpu", 1L), JobPriority.NONE, T0, null, true, null));
        s.schedule();
        assertEquals("admitted into quota group team", s.find("a", "running").get(0).reason().toString());
        assertEquals(1, s.find("a", "waiting").get(0).position());
        assertEquals("namespace nowhere belongs to no quota group", s.find("nowhere", "lost").get(0).reason().toString());
        assertTrue(s.find("a", "unknown").isEmpty());
    }
    /**
     * A namespace's pending jobs (the visibility API's {@code pendingjobs}): each with the position its group's list
     * gives it, jobs of other namespaces and admitted ones left out, jobs in no group first at position 0.
     */
    @Test
    void aNamespacesPendingJobsKeepTheirPlaceInTheirGroup() {
        Scheduler s = new Scheduler(new SchedulerSettings(SchedulingPolicy.DEFAULT, Duration.ofSeconds(1),
                Duration.ofSeconds(20)), clock);
        s.replaceTree(new QuotaTree(List.of(
                new QuotaNode("root", null, List.of(), null, Resources.of("cpu", 6000L)),
                new QuotaNode("shared", "root", List.of("a", "b"), null, Resources.of("cpu", 2000L)),
                new QuotaNode("own", "root", List.of("c"), null, Resources.of("cpu", 2000L)))));
        s.observe(queued("a", "running", 2000, 0));
        s.schedule();
        s.observe(queued("b", "first", 1000, 1));
        s.observe(queued("a", "second", 1000, 2));
        s.observe(queued("b", "third", 1000, 3));
        s.observe(queued("a", "fourth", 1000, 4));
        s.observe(queued("c", "own", 3000, 5)); // above its group's max: held, pending all the same
        s.observe(queued("nowhere", "lost", 1000, 6));
        s.schedule();

        List<PendingView> a = s.pendingIn("a");
        assertEquals(List.of("second", "fourth"), a.stream().map(v -> v.status().key().name()).toList(),
                "a's pending jobs only: not b's, not the admitted one");
        assertEquals(List.of(2, 4), a.stream().map(PendingView::position).toList(), "their places among b's jobs too");
        assertEquals(List.of(2, 4), a.stream().map(v -> s.find("a", v.status().key().name()).get(0).position())
                .toList(), "the same place find gives");

        List<PendingView> every = s.pendingIn(null);
        assertEquals(List.of("lost", "own", "first", "second", "third", "fourth"),
                every.stream().map(v -> v.status().key().name()).toList(),
                "no group first, then each group's queue in order, groups by name");
        assertEquals(0, every.get(0).position());
        assertTrue(s.pendingIn("elsewhere").isEmpty());
    }

    private static JobObservation queued(String namespace, String name, long millicores, int second) {
        return new JobObservation(new JobKey("Job", namespace, name), null, JobObservation.Phase.QUEUED,
                Resources.of("cpu", millicores), JobPriority.of(0), T0.plusSeconds(second), null, true, null);
    }
}
