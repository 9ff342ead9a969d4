package io.kubequeue.scheduler.forecast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;

import io.kubequeue.scheduler.model.FinishedRun;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.scheduler.model.RunTimeHints;

/** The history of run times: classes of alike jobs, decay, what is left of a running job, hints, bounds. */
class RunTimeHistoryTest {

    static final Instant T0 = Instant.parse("2026-12-05T00:00:00Z");
    static final Resources FOUR_CPU = Resources.of("cpu", 4000L);

    static FinishedRun run(String name, String group, Resources request, int seconds, Instant end) {
        return new FinishedRun(new JobKey("Job", "a", name), group, request, end.minusSeconds(seconds), end);
    }

    @Test
    void theMedianAndNinetiethPercentileOfAlikeRuns() {
        RunTimeHistory h = RunTimeHistory.standard();
        for (int i = 1; i <= 10; i++) {
            h.record(run("j" + i, "root.a", FOUR_CPU, i * 10, T0));
        }
        RunTimeHistory.Prediction p = h.snapshot(T0).remaining("root.a", "Job", FOUR_CPU, RunTimeHints.NONE,
                Duration.ZERO);
        assertEquals(RunTimeHistory.Source.ALIKE, p.source());
        assertEquals(10, p.runs());
        assertEquals(Duration.ofSeconds(50), p.typical());
        assertEquals(Duration.ofSeconds(90), p.late());
    }

    @Test
    void aRunningJobIsGivenWhatIsLeftOfRunsLongerThanItHasRun() {
        RunTimeHistory h = RunTimeHistory.standard();
        for (int i = 1; i <= 10; i++) {
            h.record(run("j" + i, "root.a", FOUR_CPU, i * 10, T0));
        }
        RunTimeHistory.Snapshot s = h.snapshot(T0);
        // ran 55 s: only the runs of 60..100 s count; their median is 80 s, so 25 s are left
        RunTimeHistory.Prediction p = s.remaining("root.a", "Job", FOUR_CPU, RunTimeHints.NONE,
                Duration.ofSeconds(55));
        assertEquals(Duration.ofSeconds(25), p.typical());
        assertEquals(5, p.runs());
        // longer than every run: unknown, never a made-up end
        assertFalse(s.remaining("root.a", "Job", FOUR_CPU, RunTimeHints.NONE, Duration.ofSeconds(100)).known());
    }

    @Test
    void oldRunsCountLess() {
        RunTimeHistory h = new RunTimeHistory(Duration.ofHours(1), 64, 16);
        for (int i = 0; i < 5; i++) {
            h.record(run("old" + i, "root.a", FOUR_CPU, 10, T0)); // 10 s, a day old below
        }
        for (int i = 0; i < 3; i++) {
            h.record(run("new" + i, "root.a", FOUR_CPU, 100, T0.plus(Duration.ofDays(1))));
        }
        RunTimeHistory.Prediction p = h.snapshot(T0.plus(Duration.ofDays(1))).remaining("root.a", "Job", FOUR_CPU,
                RunTimeHints.NONE, Duration.ZERO);
        assertEquals(Duration.ofSeconds(100), p.typical(), "5 runs a day old at a one-hour half-life weigh nothing");
        RunTimeHistory.Prediction fresh = h.snapshot(T0.plus(Duration.ofDays(1)).minus(Duration.ofDays(1)))
                .remaining("root.a", "Job", FOUR_CPU, RunTimeHints.NONE, Duration.ZERO);
        assertEquals(Duration.ofSeconds(10), fresh.typical(), "weighed as of the day they ended, the 5 win");
    }

    @Test
    void anotherShapeFallsBackToItsKindInItsGroupAndNoFurther() {
        RunTimeHistory h = RunTimeHistory.standard();
        h.record(run("j", "root.a", FOUR_CPU, 30, T0));
        RunTimeHistory.Snapshot s = h.snapshot(T0);
        RunTimeHistory.Prediction gpu = s.remaining("root.a", "Job", Resources.of("cpu", 4000L, "nvidia.com/gpu", 1L),
                RunTimeHints.NONE, Duration.ZERO);
        assertEquals(RunTimeHistory.Source.KIND, gpu.source());
        assertEquals(Duration.ofSeconds(30), gpu.typical());
        assertEquals(RunTimeHistory.Source.ALIKE, s.remaining("root.a", "Job", Resources.of("cpu", 3000L),
                RunTimeHints.NONE, Duration.ZERO).source(), "3 and 4 cpu are one shape (2,048 ≤ millicores < 4,096)");
        assertFalse(s.remaining("root.b", "Job", FOUR_CPU, RunTimeHints.NONE, Duration.ZERO).known(),
                "another group's runs are not this group's");
        assertFalse(s.remaining("root.a", "TFJob", FOUR_CPU, RunTimeHints.NONE, Duration.ZERO).known(),
                "another kind's runs are not this kind's");
    }

    @Test
    void theAnnotationOverridesAndTheDeadlineBounds() {
        RunTimeHistory h = RunTimeHistory.standard();
        h.record(run("j", "root.a", FOUR_CPU, 600, T0));
        RunTimeHistory.Snapshot s = h.snapshot(T0);
        RunTimeHistory.Prediction said = s.remaining("root.a", "Job", FOUR_CPU,
                new RunTimeHints(Duration.ofSeconds(40), null), Duration.ofSeconds(10));
        assertEquals(RunTimeHistory.Source.EXPECTED, said.source());
        assertEquals(Duration.ofSeconds(30), said.typical());
        RunTimeHistory.Prediction bounded = s.remaining("root.a", "Job", FOUR_CPU,
                new RunTimeHints(null, Duration.ofSeconds(120)), Duration.ZERO);
        assertEquals(Duration.ofSeconds(120), bounded.typical(), "no run outlives its activeDeadlineSeconds");
        RunTimeHistory.Prediction onlyDeadline = RunTimeHistory.Snapshot.empty().remaining("root.a", "Job",
                FOUR_CPU, new RunTimeHints(null, Duration.ofSeconds(120)), Duration.ofSeconds(20));
        assertEquals(RunTimeHistory.Source.DEADLINE, onlyDeadline.source());
        assertEquals(Duration.ofSeconds(100), onlyDeadline.typical());
    }

    @Test
    void aRunIsCountedOnceAndTheHistoryIsBounded() {
        RunTimeHistory h = new RunTimeHistory(Duration.ofDays(7), 4, 2);
        assertTrue(h.record(run("j", "root.a", FOUR_CPU, 30, T0)));
        assertFalse(h.record(run("j", "root.a", FOUR_CPU, 30, T0)), "listed again after a restart");
        for (int i = 0; i < 10; i++) {
            h.record(run("k" + i, "root.a", FOUR_CPU, 30, T0.plusSeconds(i)));
        }
        assertEquals(4, h.runs(), "4 runs per class");
        for (int g = 0; g < 5; g++) {
            h.record(run("g" + g, "root.g" + g, FOUR_CPU, 30, T0));
        }
        assertEquals(2, h.runs(), "2 classes, the newest, one run each");
        assertThrows(IllegalArgumentException.class, () -> new RunTimeHistory(Duration.ZERO, 4, 2));
    }
}
