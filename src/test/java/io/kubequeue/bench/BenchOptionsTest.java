package io.kubequeue.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

/** The benchmark's command line: the loads of issue 27 (large, backlog and its sizes). */
class BenchOptionsTest {

    @Test
    void loadsAsBefore() {
        assertEquals(List.of("baseline"), BenchOptions.parse().loads());
        assertEquals(List.of("baseline", "burst"), BenchOptions.parse("--load", "all").loads());
        assertEquals(List.of("burst"), BenchOptions.parse("--load", "burst").loads());
        assertTrue(BenchOptions.parse("--load", "all").describe().startsWith("--load all "));
    }

    @Test
    void large() {
        BenchOptions o = BenchOptions.parse("--load", "large");
        assertEquals(List.of("large"), o.loads());
        assertTrue(o.describe().startsWith("--load large "));
        assertEquals(List.of(), o.backlogSizes());
    }

    @Test
    void varied() {
        BenchOptions o = BenchOptions.parse("--load", "varied", "--policy", "strict");
        assertEquals(List.of("varied"), o.loads());
        assertTrue(o.describe().startsWith("--load varied "), o.describe());
        assertEquals(List.of(), o.backlogSizes());
        assertMessage("--backlog applies to --load backlog only", "--load", "varied", "--backlog", "10");
    }

    @Test
    void estimatePoll() {
        assertEquals(java.time.Duration.ofMillis(250), BenchOptions.parse().estimatePoll());
        assertTrue(BenchOptions.parse().describe().contains(" --estimate-poll 250ms"));
        assertEquals(java.time.Duration.ofMillis(500), BenchOptions.parse("--estimate-poll", "500ms").estimatePoll());
        assertEquals(java.time.Duration.ofSeconds(2), BenchOptions.parse("--estimate-poll", "2s").estimatePoll());
        assertTrue(BenchOptions.parse("--estimate-poll", "off").estimatePoll().isZero());
        assertTrue(BenchOptions.parse("--estimate-poll", "off").describe().contains(" --estimate-poll off"));
        assertMessage("--estimate-poll takes a duration of at least 10ms, or off, got 0", "--estimate-poll", "0");
        assertMessage("--estimate-poll takes a duration such as 150ms, 2s or 20m, got often", "--estimate-poll", "often");
    }

    @Test
    void backlogRunsOncePerSizeAndOnceWithNone() {
        BenchOptions o = BenchOptions.parse("--load", "backlog");
        assertEquals(List.of("backlog-0", "backlog-1000", "backlog-10000", "backlog-100000"), o.loads());
        assertEquals(List.of(0, 1_000, 10_000, 100_000), o.backlogSizes());
        assertTrue(o.describe().startsWith("--load backlog --backlog 1000,10000,100000 "), o.describe());
    }

    @Test
    void backlogSizesInTheOrderGivenEitherSideOfLoad() {
        List<String> expected = List.of("backlog-0", "backlog-15000", "backlog-100");
        assertEquals(expected, BenchOptions.parse("--load", "backlog", "--backlog", "15000,100,15000").loads());
        assertEquals(expected, BenchOptions.parse("--backlog", "15000, 100", "--load", "backlog").loads());
        assertEquals(List.of("backlog-0", "backlog-5"), BenchOptions.parse("--load", "backlog", "--backlog", "0,5").loads(),
                "0 is the run with none, which is always run, once");
    }

    @Test
    void badBacklogs() {
        assertMessage("--backlog applies to --load backlog only", "--backlog", "1000");
        assertMessage("--backlog applies to --load backlog only", "--load", "large", "--backlog", "1000");
        assertMessage("--backlog takes pending-job counts from 0 to 1000000, comma-separated (e.g. 1000,10000,100000),"
                + " got ten", "--load", "backlog", "--backlog", "1000,ten");
        assertMessage("--backlog takes pending-job counts from 0 to 1000000, comma-separated (e.g. 1000,10000,100000),"
                + " got -5", "--load", "backlog", "--backlog", "-5");
        assertMessage("--backlog takes pending-job counts from 0 to 1000000, comma-separated (e.g. 1000,10000,100000),"
                + " got 1000001", "--load", "backlog", "--backlog", "1000001");
        assertMessage("--backlog needs at least one size above 0, got 0", "--load", "backlog", "--backlog", "0");
        assertMessage("--load takes baseline, burst, large, varied, backlog or all (baseline and burst), got huge", "--load", "huge");
    }

    private static void assertMessage(String message, String... args) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse(args));
        assertEquals(message, e.getMessage());
    }
}
