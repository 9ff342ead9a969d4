package io.kubequeue.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import io.kubequeue.bench.Load.JobRecord;

/** The {@code varied} load (issue 30): heavy-tailed run times, drawn the same on every run, in two phases. */
class VariedLoadTest {

    private static final Duration MEDIAN = Duration.ofMillis(200);

    @Test
    void aJobsDrawIsTheSameEveryTimeAndDiffersBetweenJobs() {
        Duration once = Load.heavyTailed(MEDIAN, 1, 20, 30, "small-03-0007");
        assertEquals(once, Load.heavyTailed(MEDIAN, 1, 20, 30, "small-03-0007"));
        assertNotEquals(once, Load.heavyTailed(MEDIAN, 1, 20, 30, "small-03-0008"));
        assertNotEquals(once, Load.heavyTailed(MEDIAN, 1, 20, 31, "small-03-0007"), "the seed matters");
        // the whole load too: two instances, every job's run time equal
        List<Duration> a = Load.varied(1).jobs.stream().map(j -> j.runTime).toList();
        List<Duration> b = Load.varied(1).jobs.stream().map(j -> j.runTime).toList();
        assertEquals(a, b);
    }

    @Test
    void theClassRunTimeIsTheMedianAndTheTailIsHeavyButCapped() {
        long[] millis = new long[20_001];
        for (int i = 0; i < millis.length; i++) {
            millis[i] = Load.heavyTailed(MEDIAN, 1, 20, 30, "job-" + i).toMillis();
        }
        Arrays.sort(millis);
        long median = millis[millis.length / 2];
        assertTrue(Math.abs(median - 200) <= 8, "median " + median + " ms, not within 4 % of 200 ms");
        // log-normal, sigma 1: P(X > 3 × median) = P(Z > ln 3 = 1.0986) ≈ 13.6 %; P(X > 20 ×) = P(Z > 2.996) ≈ 0.14 %
        long above3 = Arrays.stream(millis).filter(m -> m > 600).count();
        assertTrue(above3 > 0.12 * millis.length && above3 < 0.15 * millis.length, above3 + " above 3 ×");
        assertEquals(4_000, millis[millis.length - 1], "capped at 20 × the median");
        long atCap = Arrays.stream(millis).filter(m -> m == 4_000).count();
        assertTrue(atCap > 5 && atCap < 60, atCap + " at the cap");
        assertTrue(millis[0] >= 1);
    }

    @Test
    void theBaselinesJobsInTwoPhasesOnlyTheSecondCounting() {
        Load varied = Load.varied(1);
        Load baseline = Load.baseline(1);
        assertEquals("varied", varied.name);
        assertEquals(baseline.jobs.size(), varied.jobs.size());
        assertEquals(baseline.jobs.stream().map(JobRecord::key).sorted().toList(),
                varied.jobs.stream().map(JobRecord::key).sorted().toList(), "the baseline's jobs by name");
        assertEquals(baseline.tree, varied.tree);
        assertEquals(baseline.limits, varied.limits);
        assertEquals(baseline.classes, varied.classes);
        assertEquals(7_500, varied.firstPhaseJobs());
        // submission order: every job of phase 0 before any of phase 1
        int firstOfPhase1 = varied.jobs.indexOf(varied.jobs.stream().filter(j -> j.phase == 1).findFirst().orElseThrow());
        assertEquals(7_500, firstOfPhase1);
        assertTrue(varied.jobs.subList(firstOfPhase1, varied.jobs.size()).stream().allMatch(j -> j.phase == 1));
        // each phase on the baseline's schedule from its own start: leaf 0's first small job of phase 1 at 0
        JobRecord first = varied.byKey.get("kq-bench-00/small-00-0175");
        assertEquals(1, first.phase);
        assertEquals(0, first.offsetNanos);
        assertEquals(varied.byKey.get("kq-bench-00/small-00-0001").offsetNanos,
                varied.byKey.get("kq-bench-00/small-00-0176").offsetNanos);
        // the figures are the second phase's
        assertFalse(varied.estimatesCount(varied.byKey.get("kq-bench-05/large-05-0024")));
        assertTrue(varied.estimatesCount(varied.byKey.get("kq-bench-05/large-05-0025")));
        assertTrue(baseline.estimatesCount(baseline.byKey.get("kq-bench-05/large-05-0000")), "every baseline job counts");
        Map<String, Long> counting = varied.jobs.stream().filter(varied::estimatesCount)
                .collect(Collectors.groupingBy(j -> j.jobClass.name(), Collectors.counting()));
        assertEquals(Map.of("small", 5_250L, "medium", 1_500L, "large", 750L), counting);
    }

    @Test
    void theJobRunsItsOwnDrawAndSaysSo() {
        Load varied = Load.varied(0.1);
        JobRecord r = varied.jobs.get(varied.jobs.size() - 1);
        assertEquals(Load.heavyTailed(r.jobClass.runTime(), Load.VARIED_SIGMA, Load.VARIED_CAP, Load.VARIED_SEED, r.name),
                r.runTime);
        List<String> command = varied.job(r).getSpec().getTemplate().getSpec().getContainers().get(0).getCommand();
        assertEquals(List.of("sleep", java.math.BigDecimal.valueOf(r.runTime.toMillis()).movePointLeft(3).toPlainString()),
                command);
        // the baseline's run times are its classes'
        Load baseline = Load.baseline(0.1);
        assertTrue(baseline.jobs.stream().allMatch(j -> j.runTime.equals(j.jobClass.runTime()) && j.phase == 0));
        assertTrue(varied.jobs.stream().anyMatch(j -> !j.runTime.equals(j.jobClass.runTime())));
    }

    @Test
    void namedByItsName() {
        assertEquals("varied", Load.named("varied", 0.1).name);
        assertTrue(Load.NAMES.contains("varied"));
    }
}
