package io.kubequeue.bench;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.Quantity;

/**
 * The report's burst and writes-per-admission targets (issue 27): under a write budget the burst is judged against
 * the reference under the same budget, without one against the raw patch rate; writes per admission against 1.2
 * (burst) and 1.1 (baseline).
 */
class ReportWriteTargetsTest {

    private static final Load.Limits LIMITS = new Load.Limits(new Quantity("0"), new Quantity("1000"),
            new Quantity("6000"), new Quantity("30000"));

    private static final RunResult.Stats STATS = new RunResult.Stats(500, 1, 1, 1, 1);

    private static WriteFigures writes(String client, long admissions, long events) {
        Map<WriteKind, Long> kinds = new EnumMap<>(WriteKind.class);
        WriteKind.ALL.forEach(k -> kinds.put(k, 0L));
        kinds.put(WriteKind.ADMISSION, admissions);
        kinds.put(WriteKind.EVENT, events);
        return new WriteFigures(new WriteCounts.Tally(Map.of(client, kinds)), null, 500);
    }

    private static RunResult run(String load, boolean reference, double admissionsPerSecond, WriteFigures writes) {
        Policy policy = reference ? Policy.STRICT.reference() : Policy.STRICT;
        return new RunResult(load, reference ? "reference" : "kube-queue", policy, 1_000, 1_000, 1_000, null, 10,
                admissionsPerSecond, Map.of("small", STATS, "large", STATS), LIMITS, new long[Load.LEAVES],
                new long[Load.PARENTS], 0, 0, List.of(), null, 0, Double.NaN, 0, 0, null, 0, 0, null, writes, null);
    }

    private static PatchRateProbe.Result probe(double rate, int writeRate) {
        return new PatchRateProbe.Result(1_000, 32, 1_000 / rate, 0, null, 1, 0, Double.NaN, Double.NaN, writeRate);
    }

    private static String targets(BenchOptions options, List<RunResult> results, PatchRateProbe.Result probe) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        new Report(new PrintStream(bytes, true, StandardCharsets.UTF_8), options).targets(results, probe);
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void underABudgetTheBurstIsJudgedAgainstTheReferenceNotTheRawRate() {
        BenchOptions options = BenchOptions.parse("--load", "burst", "--write-rate", "500");
        // 95/s is far below 0.8 × the raw 400/s, and above 0.9 × the reference's 100/s
        String out = targets(options, List.of(run("burst", false, 95, writes("kube-queue", 1_000, 100)),
                run("burst", true, 100, writes("reference", 1_000, 0))), probe(400, 500));
        assertTrue(out.contains("PASS burst kube-queue StrictConsistency=true: admissions/s 95.0 ≥ 0.9 × reference"
                + " (passing) 100.0 = 90.0, both under a write budget of 500 writes/s"), out);
        out = targets(options, List.of(run("burst", false, 85, writes("kube-queue", 1_000, 100)),
                run("burst", true, 100, writes("reference", 1_000, 0))), probe(400, 500));
        assertTrue(out.contains("FAIL burst kube-queue StrictConsistency=true: admissions/s 85.0 ≥ 0.9 ×"), out);
    }

    @Test
    void underABudgetWithoutAReferenceTheBurstIsNotJudged() {
        String out = targets(BenchOptions.parse("--load", "burst"),
                List.of(run("burst", false, 95, writes("kube-queue", 1_000, 0))), probe(400, 500));
        assertTrue(out.contains("not judged (no reference: add reference to --runs)"), out);
    }

    @Test
    void withoutABudgetTheBurstIsJudgedAgainstTheRawPatchRate() {
        String out = targets(BenchOptions.parse("--load", "burst", "--write-rate", "off"),
                List.of(run("burst", false, 330, writes("kube-queue", 1_000, 0)),
                        run("burst", true, 100, writes("reference", 1_000, 0))), probe(400, 0));
        assertTrue(out.contains("PASS burst kube-queue StrictConsistency=true: admissions/s 330.0 ≥ 0.8 × raw patch"
                + " rate 400.0 = 320.0"), out);
    }

    @Test
    void writesPerAdmissionAreJudgedAgainstTheirLoadsTarget() {
        BenchOptions options = BenchOptions.parse("--load", "burst");
        String out = targets(options, List.of(run("burst", false, 95, writes("kube-queue", 1_000, 200)),
                run("burst", true, 100, writes("reference", 1_000, 0))), null);
        assertTrue(out.contains("PASS burst kube-queue StrictConsistency=true: API writes per admission 1.20 ≤ 1.2"
                + " (1,200 writes ÷ 1,000 admissions) (reference (passing) 1.00)"), out);
        out = targets(options, List.of(run("burst", false, 95, writes("kube-queue", 1_000, 201))), null);
        assertTrue(out.contains("FAIL burst kube-queue StrictConsistency=true: API writes per admission 1.20 ≤ 1.2"
                + " (1,201 writes"), out);
        // the baseline's is 1.1 (its time targets are not judged here: no reference run)
        out = targets(BenchOptions.parse("--load", "all"), List.of(run("baseline", false, 95,
                writes("kube-queue", 1_000, 150))), null);
        assertTrue(out.contains("FAIL baseline kube-queue StrictConsistency=true: API writes per admission 1.15 ≤ 1.1"), out);
    }

    @Test
    void onAClusterWritesPerAdmissionAreNotCounted() {
        String out = targets(BenchOptions.parse("--load", "burst"),
                List.of(run("burst", false, 95, null), run("burst", true, 100, null)), null);
        assertTrue(out.contains("writes per admission ≤ 1.2: n/a (cluster)"), out);
    }
}
