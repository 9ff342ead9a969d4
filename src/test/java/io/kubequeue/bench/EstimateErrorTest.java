package io.kubequeue.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.kubequeue.bench.EstimateError.Cell;
import io.kubequeue.bench.EstimateError.Job;
import io.kubequeue.bench.EstimateError.Sample;

/** The estimate-error arithmetic of the benchmark (issue 30): which read counts at each point, and the figures. */
class EstimateErrorTest {

    private static final long S = 1_000_000_000L;

    private static Sample est(long seenAt, long eta) {
        return new Sample(seenAt, eta, EstimateError.ESTIMATED);
    }

    @Test
    void theNearestReadToThePointCountsEarlierOrLater() {
        Sample a = est(10 * S, 0);
        Sample b = est(20 * S, 0);
        Sample c = est(40 * S, 0);
        List<Sample> samples = List.of(c, a, b); // any order
        assertSame(a, EstimateError.nearest(samples, 0));
        assertSame(a, EstimateError.nearest(samples, 14 * S));
        assertSame(b, EstimateError.nearest(samples, 16 * S));
        assertSame(c, EstimateError.nearest(samples, 31 * S), "later and nearer beats earlier");
        assertSame(c, EstimateError.nearest(samples, 100 * S));
        assertSame(a, EstimateError.nearest(samples, 15 * S), "as near: the earlier");
        assertSame(b, EstimateError.nearest(List.of(c, b), 30 * S), "as near: the earlier, whatever the order");
        assertNull(EstimateError.nearest(List.of(), 5 * S));
    }

    @Test
    void theErrorIsTheDistanceToTheAdmissionOverTheWait() {
        // created at 100 s, admitted at 140 s: a 40 s wait
        assertEquals(0.25, EstimateError.error(150 * S, 140 * S, 100 * S), 1e-12, "10 s late");
        assertEquals(0.25, EstimateError.error(130 * S, 140 * S, 100 * S), 1e-12, "10 s early");
        assertEquals(0.0, EstimateError.error(140 * S, 140 * S, 100 * S), 1e-12);
        assertEquals(2.0, EstimateError.error(60 * S, 140 * S, 100 * S), 1e-12, "before the submission");
        assertTrue(Double.isNaN(EstimateError.error(1, 100 * S, 100 * S)), "no wait");
        assertTrue(Double.isNaN(EstimateError.error(1, 99 * S, 100 * S)), "admitted before seen created");
    }

    @Test
    void eachPointReadsItsOwnSampleAndOnlyEstimatedOnesMakeErrors() {
        // created 0, admitted 100 s; reads at 1, 26, 49 and 76 s
        Job job = new Job("small", 0, 100 * S, List.of(
                est(1 * S, 110 * S),                                         // submission: 10 % off
                new Sample(26 * S, Long.MIN_VALUE, "UNKNOWN"),               // 25 %
                est(49 * S, 70 * S),                                         // 50 %: 30 % off
                est(76 * S, 100 * S)));                                      // 75 %: exact
        Cell submission = EstimateError.cell(List.of(job), 0);
        assertEquals(1, submission.samples());
        assertEquals(0.10, submission.median(), 1e-12);
        assertEquals(0.01, submission.offset(), 1e-12, "read 1 s after its point, of a 100 s wait");
        Cell quarter = EstimateError.cell(List.of(job), 0.25);
        assertEquals(0, quarter.samples());
        assertEquals(Map.of("UNKNOWN", 1), quarter.others());
        assertTrue(Double.isNaN(quarter.median()));
        assertFalse(quarter.medianMet(), "no sample meets nothing");
        assertEquals(0.30, EstimateError.cell(List.of(job), 0.5).median(), 1e-12);
        assertEquals(0.0, EstimateError.cell(List.of(job), 0.75).p90(), 1e-12);
    }

    @Test
    void medianAndP90AreNearestRankOverTheJobs() {
        List<Job> jobs = new ArrayList<>();
        for (int i = 1; i <= 10; i++) {
            // wait 100 s, error i × 10 %: 10 %, 20 %, … 100 %
            jobs.add(new Job("small", 0, 100 * S, List.of(est(0, 100 * S + i * 10 * S))));
        }
        jobs.add(new Job("small", 0, 100 * S, List.of())); // never read
        jobs.add(new Job("small", 5 * S, 5 * S, List.of(est(5 * S, 0)))); // no wait: not counted at all
        Cell c = EstimateError.cell(jobs, 0);
        assertEquals(11, c.jobs());
        assertEquals(10, c.samples());
        assertEquals(1, c.unsampled());
        assertEquals(0.5, c.median(), 1e-12);
        assertEquals(0.9, c.p90(), 1e-12);
        assertFalse(c.medianMet());
        assertFalse(c.p90Met());
        assertEquals("never read 1", EstimateError.describeOthers(c));
    }

    @Test
    void targetsAreMetAtTheirBoundsAndMissedAbove() {
        Cell atBounds = new Cell(1, 1, 0.20, 0.50, Map.of(), 0, 0);
        assertTrue(atBounds.medianMet());
        assertTrue(atBounds.p90Met());
        Cell above = new Cell(1, 1, 0.2001, 0.5001, Map.of(), 0, 0);
        assertFalse(above.medianMet());
        assertFalse(above.p90Met());
    }

    @Test
    void perClassAndOverall() {
        List<Job> jobs = List.of(
                new Job("small", 0, 10 * S, List.of(est(0, 10 * S))),          // 0 %
                new Job("large", 0, 10 * S, List.of(est(0, 15 * S))),          // 50 %
                new Job("large", 0, 10 * S, List.of(est(0, 20 * S))));         // 100 %
        Map<String, Cell[]> table = EstimateError.byClass(jobs, List.of("small", "medium", "large"));
        assertEquals(List.of("small", "medium", "large", "all"), List.copyOf(table.keySet()));
        assertEquals(0.0, table.get("small")[0].median(), 1e-12);
        assertEquals(0, table.get("medium")[0].jobs());
        assertEquals(0.5, table.get("large")[0].median(), 1e-12);
        assertEquals(1.0, table.get("large")[0].p90(), 1e-12);
        assertEquals(3, table.get("all")[0].samples());
        assertEquals(0.5, table.get("all")[0].median(), 1e-12);
        assertEquals(EstimateError.POINTS.length, table.get("all").length);
    }

    @Test
    void anEstimateReadFromTheApiLandsOnTheHarnessClock() throws Exception {
        ObjectMapper json = new ObjectMapper();
        Instant sent = Instant.parse("2026-01-01T00:00:00Z");
        long sentNanos = 5 * S;
        Sample s = EstimatePoller.sample(json.readTree("""
                {"state":"ESTIMATED","eta":"2026-01-01T00:00:12.5Z","etaLate":null,"runsForSeconds":1,
                 "assumptions":[],"computedAt":"2026-01-01T00:00:00Z","ageSeconds":0}"""), sentNanos, sent);
        assertEquals(EstimateError.ESTIMATED, s.state());
        assertEquals(sentNanos, s.seenAt());
        assertEquals(sentNanos + 12_500_000_000L, s.eta());

        Sample blocked = EstimatePoller.sample(json.readTree("{\"state\":\"BLOCKED\",\"eta\":null}"), sentNanos, sent);
        assertEquals("BLOCKED", blocked.state());
        assertFalse(blocked.estimated());
        assertEquals("ESTIMATED_WITHOUT_ETA",
                EstimatePoller.sample(json.readTree("{\"state\":\"ESTIMATED\"}"), sentNanos, sent).state());
        assertEquals("UNREADABLE_ETA",
                EstimatePoller.sample(json.readTree("{\"state\":\"ESTIMATED\",\"eta\":\"soon\"}"), sentNanos, sent).state());
    }
}
