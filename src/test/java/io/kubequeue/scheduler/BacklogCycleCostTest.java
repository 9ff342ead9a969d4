package io.kubequeue.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.kubequeue.scheduler.model.Admission;
import io.kubequeue.scheduler.model.CycleResult;
import io.kubequeue.scheduler.model.GroupView;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.JobPriority;
import io.kubequeue.scheduler.model.QuotaNode;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.scheduler.model.SchedulerSettings;
import io.kubequeue.scheduler.model.SchedulingPolicy;

/**
 * Issue 27 item 4, counted (never timed): one quota group holds N pending jobs that cannot fit (its cpu max is taken
 * by a running job, and nothing there ends), while jobs of two other groups arrive, are admitted and finish. Over a
 * minute of cycles, past several backoff expiries, what a cycle touches one by one ({@code Scheduler.lastCycleVisits})
 * must not grow with N: the backlog costs a cycle the same at 1,000 jobs as at 100,000.
 */
class BacklogCycleCostTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final String GPU = "nvidia.com/gpu";
    private static final long GI = 1L << 30;

    /** What the steady-state cycles cost and decided. */
    record Run(int maxVisits, int totalVisits, List<String> otherAdmissions) {
    }

    private static QuotaTree tree() {
        return new QuotaTree(List.of(
                new QuotaNode("root", null, List.of(),
                        Resources.of("cpu", 64_000L, Resources.MEMORY, 256 * GI, GPU, 8L),
                        Resources.of("cpu", 128_000L, Resources.MEMORY, 512 * GI, GPU, 16L)),
                new QuotaNode("stuck", "root", List.of("stuck"),
                        Resources.of("cpu", 4_000L, Resources.MEMORY, 16 * GI),
                        Resources.of("cpu", 8_000L, Resources.MEMORY, 64 * GI, GPU, 2L)),
                new QuotaNode("b", "root", List.of("b"),
                        Resources.of("cpu", 8_000L, Resources.MEMORY, 32 * GI, GPU, 2L),
                        Resources.of("cpu", 16_000L, Resources.MEMORY, 64 * GI, GPU, 4L)),
                new QuotaNode("c", "root", List.of("c"),
                        Resources.of("cpu", 8_000L, Resources.MEMORY, 32 * GI),
                        Resources.of("cpu", 16_000L, Resources.MEMORY, 64 * GI))));
    }

    private static JobObservation queued(String ns, String name, Resources request, int createdSecond) {
        return new JobObservation(new JobKey("Job", ns, name), "u-" + ns + "-" + name, JobObservation.Phase.QUEUED,
                request, JobPriority.NONE, T0.plusSeconds(createdSecond), null, true, null, "1");
    }

    private static Run run(SchedulingPolicy policy, int backlog) {
        MutableClock clock = new MutableClock(T0);
        Scheduler scheduler = new Scheduler(new SchedulerSettings(policy, Duration.ofSeconds(1),
                Duration.ofSeconds(20)), clock);
        scheduler.replaceTree(tree());
        // the group's whole cpu max runs, and never ends in this test
        scheduler.observe(queued("stuck", "running", Resources.of("cpu", 8_000L, Resources.MEMORY, 8 * GI), 0));
        assertEquals(1, scheduler.schedule().admissions().size());
        for (int i = 0; i < backlog; i++) {
            scheduler.observe(queued("stuck", "p" + i, Resources.of("cpu", 1_000L, Resources.MEMORY, 2 * GI), 1));
        }
        CycleResult first = scheduler.schedule(); // every job of the backlog is tried once, on arrival
        assertTrue(first.admissions().isEmpty());
        int maxVisits = 0;
        int totalVisits = 0;
        List<String> admitted = new ArrayList<>();
        List<JobKey> running = new ArrayList<>();
        for (int round = 0; round < 60; round++) {
            clock.advance(Duration.ofMillis(1_100));
            for (JobKey key : running) {
                scheduler.observe(JobObservation.finished(key)); // a release at b or c, never at "stuck"
            }
            running.clear();
            scheduler.observe(queued("b", "b" + round, Resources.of("cpu", 2_000L, Resources.MEMORY, 4 * GI, GPU, 1L),
                    10 + round));
            scheduler.observe(queued("c", "c" + round, Resources.of("cpu", 3_000L, Resources.MEMORY, 8 * GI),
                    10 + round));
            CycleResult result = scheduler.schedule();
            for (Admission a : result.admissions()) {
                admitted.add(a.key().name());
                running.add(a.key());
            }
            maxVisits = Math.max(maxVisits, scheduler.lastCycleVisits());
            totalVisits += scheduler.lastCycleVisits();
        }
        // the backlog is all still there, each job with its backoff
        GroupView stuck = scheduler.groups().stream().filter(g -> g.name().equals("stuck")).findFirst()
                .orElseThrow();
        assertEquals(backlog, stuck.backoff() + stuck.active());
        return new Run(maxVisits, totalVisits, admitted);
    }

    @ParameterizedTest
    @EnumSource(SchedulingPolicy.class)
    void aBacklogThatCannotFitCostsACycleTheSameAtAThousandJobsAsAtAHundredThousand(SchedulingPolicy policy) {
        Run small = run(policy, 1_000);
        Run large = run(policy, 100_000);
        assertEquals(small.otherAdmissions(), large.otherAdmissions(), "the other groups' admissions");
        assertEquals(120, small.otherAdmissions().size(), "every job of b and c admitted in its round");
        assertEquals(small.maxVisits(), large.maxVisits(),
                "entries a steady-state cycle touched, at most, with 1,000 then 100,000 jobs that cannot fit");
        assertEquals(small.totalVisits(), large.totalVisits(), "entries touched over the minute");
        // a cycle touches b's job, c's job and the backlog's one wave
        assertTrue(large.maxVisits() <= 3, "at most 3 entries a cycle, touched " + large.maxVisits());
    }
}
