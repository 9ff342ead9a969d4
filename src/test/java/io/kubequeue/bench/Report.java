package io.kubequeue.bench;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * Prints the results: per load and policy, a plain table of every figure of kube-queue beside the reference's and
 * their ratio (kube-queue ÷ reference), the raw patch rate, then the targets as PASS/FAIL lines.
 */
final class Report {

    private static final double MIB = 1024 * 1024;

    private final PrintStream out;
    private final BenchOptions options;

    Report(PrintStream out, BenchOptions options) {
        this.out = out;
        this.options = options;
    }

    /** One line of a table: the figure's name and how to read it from a run; NaN where it does not apply. */
    private record Row(String name, ToDoubleFunction<RunResult> value, String format) {
    }

    void print(List<RunResult> results, PatchRateProbe.Result probe) {
        out.printf("%n================ results (%s) ================%n", options.describe());
        for (String load : options.loads()) {
            for (Policy policy : options.policies()) {
                RunResult kq = find(results, load, false, policy);
                if (kq != null) {
                    table(load, kq, find(results, load, true, policy.reference()));
                }
            }
            if (results.stream().noneMatch(r -> r.load().equals(load) && !r.isReference())) {
                results.stream().filter(r -> r.load().equals(load) && r.isReference()).forEach(r -> table(load, null, r));
            }
        }
        new BacklogReport(out).print(results, options);
        new EstimateReport(out).print(results);
        if (probe != null) {
            out.printf("%n== raw patch-rate probe: %,d suspended Jobs, %d patches in flight, write latency %d ms ==%n",
                    probe.jobs(), probe.inFlight(), options.writeLatency().toMillis());
            if (probe.error() != null) {
                out.println("probe failed: " + probe.error());
            } else {
                out.printf("patches/s %.1f %s  (%,d patches in %.2f s, %d refused or lost; harness + API server CPU %.2f cores,"
                        + " the server's event loop %.2f, meanwhile)%n", probe.rate(), probe.budget(), probe.jobs(), probe.seconds(),
                        probe.failures(), probe.harnessCores(), probe.serverCores());
                out.printf("creates/s %.1f  (%,d creates in %.2f s, %d in flight, before the patches; the server's event"
                        + " loop %.2f cores meanwhile)%n", probe.jobs() / probe.createSeconds(), probe.jobs(),
                        probe.createSeconds(), BenchRun.CREATES_IN_FLIGHT, probe.createServerCores());
            }
        }
    }

    private void table(String load, RunResult kq, RunResult ref) {
        RunResult any = kq != null ? kq : ref;
        out.printf("%n== %s, %s: %,d jobs; tree: %,d leaves max %s cpu, %d parents max %s cpu, root max %s cpu ==%n",
                load, kq == null ? any.label() + " only" : kq.label() + " against the " + (ref == null ? "reference (not run)"
                        : ref.label()), any.jobs(), any.leafPeak().length,
                Load.cpu(any.limits().leafMaxMillis()), any.parentPeak().length,
                Load.cpu(any.limits().parentMaxMillis()),
                Load.cpu(any.limits().rootMaxMillis()));
        for (RunResult r : new RunResult[] {kq, ref}) {
            if (r != null && !r.complete()) {
                out.printf("!! %s did not complete: %s%n", r.label(), r.failure());
            }
        }
        List<Row> rows = new ArrayList<>();
        rows.add(new Row("jobs admitted", r -> r.admitted(), "%,.0f"));
        rows.add(new Row("jobs finished", r -> r.finished(), "%,.0f"));
        rows.add(new Row("wall: first submission to last completion (s)", RunResult::wallSeconds, "%.2f"));
        rows.add(new Row("admissions/s", RunResult::admissionsPerSecond, "%.1f"));
        for (String c : any.timeToAdmission().keySet()) {
            rows.add(new Row("time to admission " + c + " avg (s)", stat(c, RunResult.Stats::avg), "%.3f"));
            rows.add(new Row("time to admission " + c + " p50 (s)", stat(c, RunResult.Stats::p50), "%.3f"));
            rows.add(new Row("time to admission " + c + " p90 (s)", stat(c, RunResult.Stats::p90), "%.3f"));
            rows.add(new Row("time to admission " + c + " p99 (s)", stat(c, RunResult.Stats::p99), "%.3f"));
        }
        rows.add(new Row("peak cpu, highest leaf (max " + Load.cpu(any.limits().leafMaxMillis()) + ")",
                r -> max(r.leafPeak()) / 1000.0, "%.1f"));
        rows.add(new Row("peak cpu, lowest leaf", r -> min(r.leafPeak()) / 1000.0, "%.1f"));
        rows.add(new Row("peak cpu, highest parent (max " + Load.cpu(any.limits().parentMaxMillis()) + ")",
                r -> max(r.parentPeak()) / 1000.0, "%.1f"));
        rows.add(new Row("peak cpu, lowest parent", r -> min(r.parentPeak()) / 1000.0, "%.1f"));
        rows.add(new Row("peak cpu, root (max " + Load.cpu(any.limits().rootMaxMillis()) + ")", r -> r.rootPeak() / 1000.0,
                "%.1f"));
        rows.add(new Row("excess: admissions above a max", RunResult::excessEvents, "%,.0f"));
        rows.add(new Row("kube-queue start to ready (s)", proc(p -> p.startSeconds()), "%.1f"));
        rows.add(new Row("kube-queue heap after full GC (MiB)",
                proc(p -> p.heapAfterGcBytes() < 0 ? Double.NaN : p.heapAfterGcBytes() / MIB), "%.1f"));
        rows.add(new Row("kube-queue RSS peak, VmHWM (MiB)", proc(p -> p.rssPeakKiB() / 1024.0), "%.1f"));
        rows.add(new Row("kube-queue RSS at end, VmRSS (MiB)", proc(p -> p.rssFinalKiB() / 1024.0), "%.1f"));
        rows.add(new Row("kube-queue CPU avg over the run (cores)", proc(RunResult.ProcessFigures::cpuCores), "%.2f"));
        rows.add(new Row("kube-queue scheduling cycle p50 (ms)", cost(c -> c.cycleP50Seconds() * 1000), "%.3f"));
        rows.add(new Row("kube-queue scheduling cycle p99 (ms)", cost(c -> c.cycleP99Seconds() * 1000), "%.3f"));
        rows.add(new Row("kube-queue scheduling cycle mean over the run (ms)", cost(c -> c.cycleMeanSeconds() * 1000), "%.3f"));
        rows.add(new Row("kube-queue admissions (its own metric)", proc(RunResult.ProcessFigures::admissionsMetric), "%,.0f"));
        rows.add(new Row("  patches refused: job's version moved on", proc(p -> p.versions().refused()), "%,.0f"));
        rows.add(new Row("  handed back unsent: job seen changed", proc(p -> p.versions().unsent()), "%,.0f"));
        rows.add(new Row("  rebound to a newer version before sending", proc(p -> p.versions().rebound()), "%,.0f"));
        rows.add(new Row("  fences after an ambiguous answer", proc(p -> p.versions().fences()), "%,.0f"));
        rows.add(new Row("harness + API server CPU avg (cores)", RunResult::harnessCores, "%.2f"));
        rows.add(new Row("  of which the API server's event loop (cores; 1 = saturated)", RunResult::serverCores, "%.2f"));
        rows.add(new Row("machine CPU busy avg, all processes (cores of " + ProcStats.cores() + ")",
                RunResult::machineCores, "%.2f"));
        rows.add(new Row("harness write errors (creates, status)", RunResult::writeFailures, "%,.0f"));
        rows.add(new Row("reference patches refused or lost", RunResult::refused, "%,.0f"));
        rows.add(new Row("submission behind schedule, max (ms)", RunResult::submitLagMillis, "%.1f"));
        rows.add(new Row("API writes per admission (the admitter's writes ÷ admissions)", RunResult::writesPerAdmission,
                "%.2f"));

        int width = rows.stream().mapToInt(r -> r.name().length()).max().orElse(20) + 2;
        String header = "%-" + width + "s%14s%14s%10s%n";
        out.printf(header, "figure", "kube-queue", "reference", "ratio");
        for (Row row : rows) {
            double a = kq == null ? Double.NaN : row.value().applyAsDouble(kq);
            double b = ref == null ? Double.NaN : row.value().applyAsDouble(ref);
            String ratio = Double.isNaN(a) || Double.isNaN(b) || b == 0 ? "" : String.format("%.2f", a / b);
            out.printf(header, row.name(), format(row.format(), a), format(row.format(), b), ratio);
        }
        writes(kq, ref);
        for (RunResult r : new RunResult[] {kq, ref}) {
            if (r != null) {
                r.excesses().forEach(e -> out.println("!! excess (" + r.label() + "): " + e));
                if (r.firstWriteFailure() != null) {
                    out.println("!! first failed harness write (" + r.label() + "): " + r.firstWriteFailure());
                }
            }
        }
    }

    /**
     * The targets, PASS or FAIL, one line each.
     *
     * @return whether every target that could be judged passed
     */
    boolean targets(List<RunResult> results, PatchRateProbe.Result probe) {
        out.printf("%n== targets (issues 13, 27 and 30) ==%n");
        List<Boolean> verdicts = new ArrayList<>();
        // the issue states these for StrictConsistency=true; the blocking queue is judged the same way against its own
        // reference (the default policy's backoff is its documented cost: not judged)
        for (Policy policy : List.of(Policy.STRICT, Policy.BLOCKING)) {
            if (options.policies().contains(policy) && options.loads().contains("baseline")) {
                againstReference(verdicts, find(results, "baseline", false, policy),
                        find(results, "baseline", true, policy.reference()), "baseline kube-queue " + policy.label() + ": ");
            }
        }
        for (RunResult r : results) {
            if (r.admitter().equals("kube-queue")) {
                verdicts.add(line(r.excessEvents() == 0, r.load() + " " + r.label() + ": zero excess over any max ("
                        + r.excessEvents() + ")"));
            }
        }
        burstThroughput(verdicts, results, probe);
        writesPerAdmission(verdicts, results);
        for (RunResult r : results) {
            if (r.load().equals("baseline") && r.admitter().equals("kube-queue") && r.process() != null) {
                String who = String.format("baseline %s, %,d jobs%s: ", r.label(), r.jobs(),
                        r.jobs() == 15_000 ? "" : " (the target is stated for 15,000)");
                RunResult.ProcessFigures p = r.process();
                if (p.heapAfterGcBytes() >= 0) {
                    verdicts.add(line(p.heapAfterGcBytes() <= 64 * MIB, who
                            + String.format("heap after full GC %.1f MiB ≤ 64 MiB", p.heapAfterGcBytes() / MIB)));
                } else {
                    out.println("---- " + who + "heap after full GC: not read (jcmd or /q/metrics unavailable)");
                }
                verdicts.add(line(p.rssPeakKiB() <= 256 * 1024, who
                        + String.format("peak RSS %.1f MiB ≤ 256 MiB", p.rssPeakKiB() / 1024.0)));
                verdicts.add(line(p.cpuCores() <= 0.5, who + String.format("avg CPU %.2f cores ≤ 0.5", p.cpuCores())));
            }
        }
        largeTargets(verdicts, results);
        new BacklogReport(out).targets(verdicts, results, options);
        new EstimateReport(out).targets(verdicts, results);
        long passed = verdicts.stream().filter(v -> v).count();
        out.printf("%d of %d targets passed%n", passed, verdicts.size());
        return passed == verdicts.size();
    }

    /**
     * The large baseline (issue 27), {@code StrictConsistency=true}: wall ≤ 1.05 × the reference's; heap after full
     * GC ≤ 128 MiB and peak RSS ≤ 384 MiB with the shipped settings.
     */
    private void largeTargets(List<Boolean> verdicts, List<RunResult> results) {
        RunResult kq = find(results, "large", false, Policy.STRICT);
        if (kq == null) {
            return;
        }
        String who = String.format("large %s, %,d jobs%s%s: ", kq.label(), kq.jobs(),
                kq.jobs() == 50_000 ? "" : " (the targets are stated for 50,000)",
                options.heap() == null ? "" : " (--heap " + options.heap() + ": not the shipped settings)");
        RunResult ref = find(results, "large", true, Policy.STRICT.reference());
        if (ref != null && kq.complete() && ref.complete()) {
            verdicts.add(line(kq.wallSeconds() <= 1.05 * ref.wallSeconds(), who + String.format(
                    "wall %.2f s ≤ 1.05 × %s %.2f s = %.2f s", kq.wallSeconds(), ref.label(), ref.wallSeconds(),
                    1.05 * ref.wallSeconds())));
        } else {
            out.println("---- " + who + "wall against the reference: not judged (a run is missing or incomplete)");
        }
        RunResult.ProcessFigures p = kq.process();
        if (p == null) {
            out.println("---- " + who + "heap and RSS: not read (kube-queue gone)");
            return;
        }
        if (p.heapAfterGcBytes() >= 0) {
            verdicts.add(line(p.heapAfterGcBytes() <= 128 * MIB, who
                    + String.format("heap after full GC %.1f MiB ≤ 128 MiB", p.heapAfterGcBytes() / MIB)));
        } else {
            out.println("---- " + who + "heap after full GC: not read (jcmd or /q/metrics unavailable)");
        }
        verdicts.add(line(p.rssPeakKiB() <= 384 * 1024, who
                + String.format("peak RSS %.1f MiB ≤ 384 MiB", p.rssPeakKiB() / 1024.0)));
    }

    /**
     * The API writes of each run at the embedded server, by client and kind (one line per client that wrote), from
     * the first submission to the end of the run, and the write budget's waits; "n/a (cluster)" on a cluster.
     */
    private void writes(RunResult kq, RunResult ref) {
        for (RunResult r : new RunResult[] {kq, ref}) {
            if (r == null) {
                continue;
            }
            if (r.writes() == null) {
                out.printf("API writes, %s: n/a (cluster: the server cannot count them here)%n", r.label());
                continue;
            }
            WriteFigures w = r.writes();
            WriteBudget.Figures b = w.budget();
            out.printf("API writes at the server, %s, first submission to end of run (%s):%n", r.label(), b == null
                    ? "no write budget" : String.format("write budget %d/s: %,d of %,d writes held for a slot, wait avg"
                    + " %.1f ms, longest %.1f ms", w.writeRate(), b.held(), b.taken(), b.averageWaitMillis(),
                    b.longestWaitNanos() / 1e6));
            StringBuilder header = new StringBuilder(String.format("  %-12s", "client"));
            WriteKind.ALL.forEach(k -> header.append(String.format("%19s", k.label)));
            out.println(header.append(String.format("%10s", "total")));
            for (String client : w.tally().clients()) {
                StringBuilder line = new StringBuilder(String.format("  %-12s", client));
                WriteKind.ALL.forEach(k -> line.append(String.format("%,19d", w.tally().of(client, k))));
                out.println(line.append(String.format("%,10d", w.tally().of(client))));
            }
            out.printf("  writes per admission, %s: %s (%,d writes ÷ %,d admissions seen)%n", r.writer(),
                    format("%.2f", r.writesPerAdmission()), w.tally().of(r.writer()), r.admitted());
        }
    }

    /**
     * Burst: with a write budget (or on a cluster, which has its own), kube-queue's admissions/s ≥ 0.9 × the
     * reference's under the same budget (the harness's creates and status writes share it, so the raw patch rate is
     * context); with none, ≥ 0.8 × the probe's raw patch rate.
     */
    private void burstThroughput(List<Boolean> verdicts, List<RunResult> results, PatchRateProbe.Result probe) {
        boolean budget = options.writeRate() > 0 || options.kubeconfig() != null;
        for (RunResult r : results) {
            if (!r.load().equals("burst") || !r.admitter().equals("kube-queue")) {
                continue;
            }
            if (budget) {
                RunResult ref = find(results, "burst", true, r.policy().reference());
                String context = probe == null || probe.error() != null ? ""
                        : String.format("; raw patch rate %.1f %s, context", probe.rate(), probe.budget());
                if (ref == null || !ref.complete() || !r.complete()) {
                    out.println("---- burst " + r.label() + ": admissions/s against the reference's under the same"
                            + " budget: not judged " + (ref == null ? "(no reference: add reference to --runs)"
                            : "(a run is incomplete)"));
                } else {
                    verdicts.add(line(r.admissionsPerSecond() >= 0.9 * ref.admissionsPerSecond(), String.format(
                            "burst %s: admissions/s %.1f ≥ 0.9 × %s %.1f = %.1f, both %s%s", r.label(),
                            r.admissionsPerSecond(), ref.label(), ref.admissionsPerSecond(),
                            0.9 * ref.admissionsPerSecond(), options.kubeconfig() != null ? "on the cluster"
                            : "under a write budget of " + options.writeRate() + " writes/s", context)));
                }
            } else if (probe == null || probe.error() != null || !r.complete()) {
                out.println("---- burst " + r.label() + ": admissions/s against the raw patch rate: not judged "
                        + (probe == null ? "(no probe: add probe to --runs)" : "(a run is incomplete)"));
            } else {
                verdicts.add(line(r.admissionsPerSecond() >= 0.8 * probe.rate(), String.format(
                        "burst %s: admissions/s %.1f ≥ 0.8 × raw patch rate %.1f = %.1f (%d in flight, no write budget)",
                        r.label(), r.admissionsPerSecond(), probe.rate(), 0.8 * probe.rate(), probe.inFlight())));
            }
        }
    }

    /**
     * kube-queue's API writes ÷ its admissions (the patch plus everything else it sends, events above all):
     * ≤ 1.2 averaged over the burst, ≤ 1.1 on the baseline; printed beside the reference's (one patch each).
     */
    private void writesPerAdmission(List<Boolean> verdicts, List<RunResult> results) {
        for (RunResult r : results) {
            if (!r.admitter().equals("kube-queue") || !(r.load().equals("burst") || r.load().equals("baseline"))) {
                continue;
            }
            double target = r.load().equals("burst") ? 1.2 : 1.1;
            RunResult ref = find(results, r.load(), true, r.policy().reference());
            String beside = ref == null || Double.isNaN(ref.writesPerAdmission()) ? ""
                    : String.format(" (%s %.2f)", ref.label(), ref.writesPerAdmission());
            if (r.writes() == null) {
                out.println("---- " + r.load() + " " + r.label() + ": writes per admission ≤ " + target
                        + ": n/a (cluster)");
            } else if (!r.complete() || r.admitted() == 0) {
                out.println("---- " + r.load() + " " + r.label() + ": writes per admission: not judged (the run is"
                        + " incomplete)");
            } else {
                verdicts.add(line(r.writesPerAdmission() <= target, String.format(
                        "%s %s: API writes per admission %.2f ≤ %.1f (%,d writes ÷ %,d admissions)%s", r.load(),
                        r.label(), r.writesPerAdmission(), target, r.writes().tally().of(r.writer()), r.admitted(),
                        beside)));
            }
        }
    }

    private boolean line(boolean pass, String text) {
        out.println((pass ? "PASS " : "FAIL ") + text);
        return pass;
    }

    private void againstReference(List<Boolean> verdicts, RunResult kq, RunResult ref, String who) {
        if (kq != null && ref != null && kq.complete() && ref.complete()) {
            verdicts.add(line(kq.wallSeconds() <= 1.05 * ref.wallSeconds(), who + String.format(
                    "wall %.2f s ≤ 1.05 × %s %.2f s = %.2f s", kq.wallSeconds(), ref.label(), ref.wallSeconds(),
                    1.05 * ref.wallSeconds())));
            for (Map.Entry<String, RunResult.Stats> e : kq.timeToAdmission().entrySet()) {
                double mine = e.getValue().avg();
                double theirs = ref.timeToAdmission().get(e.getKey()).avg();
                verdicts.add(line(mine <= 2 * theirs, who + String.format("avg time to admission %s %.3f s ≤ 2 × %s %.3f s = %.3f s",
                        e.getKey(), mine, ref.label(), theirs, 2 * theirs)));
            }
        } else {
            out.println("---- " + who + "against its reference: not judged (a run is missing or incomplete)");
        }
        if (kq != null && kq.complete()) {
            RunResult.Stats large = kq.timeToAdmission().get("large");
            RunResult.Stats small = kq.timeToAdmission().get("small");
            verdicts.add(line(large.avg() < small.avg(), who + String.format(
                    "large admitted sooner than small on average (large %.3f s < small %.3f s)", large.avg(), small.avg())));
        }
    }

    private static RunResult find(List<RunResult> results, String load, boolean reference, Policy policy) {
        return results.stream().filter(r -> r.load().equals(load)
                && r.isReference() == reference && r.policy() == policy).findFirst().orElse(null);
    }

    private static ToDoubleFunction<RunResult> stat(String c, Function<RunResult.Stats, Double> f) {
        return r -> r.timeToAdmission().get(c) == null ? Double.NaN : f.apply(r.timeToAdmission().get(c));
    }

    private static ToDoubleFunction<RunResult> cost(ToDoubleFunction<QueueCost> f) {
        return r -> r.cost() == null ? Double.NaN : f.applyAsDouble(r.cost());
    }

    private static ToDoubleFunction<RunResult> proc(ToDoubleFunction<RunResult.ProcessFigures> f) {
        return r -> r.process() == null ? Double.NaN : f.applyAsDouble(r.process());
    }

    private static long max(long[] values) {
        long m = Long.MIN_VALUE;
        for (long v : values) {
            m = Math.max(m, v);
        }
        return m;
    }

    private static long min(long[] values) {
        long m = Long.MAX_VALUE;
        for (long v : values) {
            m = Math.min(m, v);
        }
        return m;
    }

    private static String format(String format, double value) {
        return Double.isNaN(value) ? "—" : String.format(format, value);
    }
}
