package io.kubequeue.bench;

import java.io.PrintStream;
import java.util.Comparator;
import java.util.List;

/**
 * The backlog load's figures (issue 27 items 4 and 5), one line per backlog size and policy, and their targets:
 * <ul>
 *   <li>the scheduling cycle's p99 at the largest size ≤ 2 × its p99 at the smallest (1,000 by default);</li>
 *   <li>the other groups' admissions/s at each size ≥ 0.9 × those of the run without a backlog (a faster run is
 *       no regression, so only the lower side of "within 10 %" is judged);</li>
 *   <li>live heap after full GC ÷ pending jobs ≤ 1 KiB, at each size of at least {@value #MEMORY_JUDGED_FROM}
 *       (below it the runtime's fixed heap, some 30–40 MiB, is most of the figure).</li>
 * </ul>
 */
final class BacklogReport {

    private static final double MIB = 1024 * 1024;
    private static final double KIB = 1024;
    /** The smallest backlog at which memory per pending job is judged. */
    static final int MEMORY_JUDGED_FROM = 10_000;

    private final PrintStream out;

    BacklogReport(PrintStream out) {
        this.out = out;
    }

    /** kube-queue's backlog runs of one policy, by size (the run with none first). */
    private static List<RunResult> runs(List<RunResult> results, Policy policy) {
        return results.stream().filter(r -> !r.isReference() && r.policy() == policy && Load.backlogSize(r.load()) >= 0)
                .sorted(Comparator.comparingInt(r -> Load.backlogSize(r.load()))).toList();
    }

    private static int size(RunResult r) {
        return Load.backlogSize(r.load());
    }

    /** The per-size table of every policy that ran the backlog load. */
    void print(List<RunResult> results, BenchOptions options) {
        for (Policy policy : options.policies()) {
            List<RunResult> runs = runs(results, policy);
            if (runs.isEmpty()) {
                continue;
            }
            RunResult none = size(runs.get(0)) == 0 ? runs.get(0) : null;
            out.printf("%n== backlog that cannot fit, kube-queue %s: per backlog size (the other groups: the baseline's"
                    + " %,d jobs) ==%n", policy.label(), runs.get(0).jobs());
            String header = "%10s%12s%12s%14s%14s%12s%12s%12s%10s%14s%8s%n";
            out.printf(header, "backlog", "pending", "heap MiB", "KiB/pending", "KiB/backlog", "cycle p50", "cycle p99",
                    "cycle mean", "cycles", "others adm/s", "ratio");
            out.printf(header, "", "(its gauge)", "(full GC)", "", "job (Δ none)", "(ms)", "(ms)", "(ms)", "", "", "");
            for (RunResult r : runs) {
                QueueCost c = r.cost();
                out.printf(header, String.format("%,d", size(r)),
                        c == null ? "—" : num("%,.0f", c.pendingBefore()),
                        c == null || c.heapBeforeBytes() < 0 ? "—" : String.format("%.1f", c.heapBeforeBytes() / MIB),
                        c == null ? "—" : num("%.2f", c.heapPerPendingBytes() / KIB),
                        c == null || none == null || none.cost() == null ? "—"
                                : num("%.3f", c.marginalHeapPerPendingBytes(none.cost()) / KIB),
                        c == null ? "—" : ms(c.cycleP50Seconds()), c == null ? "—" : ms(c.cycleP99Seconds()),
                        c == null ? "—" : ms(c.cycleMeanSeconds()), c == null ? "—" : num("%,.0f", c.cycles()),
                        String.format("%.1f", r.admissionsPerSecond()),
                        none == null || none.admissionsPerSecond() == 0 ? ""
                                : String.format("%.2f", r.admissionsPerSecond() / none.admissionsPerSecond()));
                if (!r.complete()) {
                    out.printf("!! backlog %,d did not complete: %s%n", size(r), r.failure());
                }
            }
            if (runs.stream().anyMatch(r -> r.cost() != null && Double.isNaN(r.cost().cycleP99Seconds()))) {
                out.printf("(cycle p50/p99 n/a: kube-queue publishes no %s{quantile=...})%n", QueueCost.CYCLE_SERIES);
            }
        }
    }

    /** The targets of the class comment, one line each, added to {@code verdicts}. */
    void targets(List<Boolean> verdicts, List<RunResult> results, BenchOptions options) {
        for (Policy policy : options.policies()) {
            List<RunResult> runs = runs(results, policy).stream().filter(RunResult::complete).toList();
            if (runs.isEmpty()) {
                continue;
            }
            String who = "backlog " + policy.label() + ": ";
            RunResult none = size(runs.get(0)) == 0 ? runs.get(0) : null;
            List<RunResult> sized = runs.stream().filter(r -> size(r) > 0 && r.cost() != null).toList();
            if (sized.size() >= 2) {
                RunResult smallest = sized.get(0);
                RunResult largest = sized.get(sized.size() - 1);
                double p99Small = smallest.cost().cycleP99Seconds();
                double p99Large = largest.cost().cycleP99Seconds();
                if (Double.isNaN(p99Small) || Double.isNaN(p99Large)) {
                    out.printf("---- %scycle p99 at %,d ≤ 2 × at %,d: n/a (no %s{quantile=\"0.99\"})%n", who,
                            size(largest), size(smallest), QueueCost.CYCLE_SERIES);
                } else {
                    verdicts.add(line(p99Large <= 2 * p99Small, who + String.format(
                            "cycle p99 at %,d pending %.3f ms ≤ 2 × at %,d %.3f ms = %.3f ms", size(largest),
                            p99Large * 1000, size(smallest), p99Small * 1000, 2 * p99Small * 1000)));
                }
            } else {
                out.printf("---- %scycle p99 against the smallest backlog: not judged (fewer than two complete sizes)%n", who);
            }
            for (RunResult r : runs) {
                if (size(r) == 0) {
                    continue;
                }
                if (none != null && none.admissionsPerSecond() > 0) {
                    verdicts.add(line(r.admissionsPerSecond() >= 0.9 * none.admissionsPerSecond(), who + String.format(
                            "other groups' admissions/s at %,d pending %.1f ≥ 0.9 × without backlog %.1f = %.1f",
                            size(r), r.admissionsPerSecond(), none.admissionsPerSecond(),
                            0.9 * none.admissionsPerSecond())));
                } else {
                    out.printf("---- %sadmissions/s at %,d against no backlog: not judged (that run is missing)%n", who,
                            size(r));
                }
                QueueCost c = r.cost();
                double perJob = c == null ? Double.NaN : c.heapPerPendingBytes();
                String text = String.format("heap after full GC ÷ pending at %,d: %s KiB ≤ 1 KiB", size(r),
                        num("%.2f", perJob / KIB));
                if (size(r) < MEMORY_JUDGED_FROM) {
                    out.println("---- " + who + text + " (not judged below " + MEMORY_JUDGED_FROM + ")");
                } else if (Double.isNaN(perJob)) {
                    out.println("---- " + who + text + ": not read");
                } else {
                    verdicts.add(line(perJob <= KIB, who + text));
                }
            }
        }
    }

    private boolean line(boolean pass, String text) {
        out.println((pass ? "PASS " : "FAIL ") + text);
        return pass;
    }

    private static String ms(double seconds) {
        return num("%.3f", seconds * 1000);
    }

    private static String num(String format, double v) {
        return Double.isNaN(v) ? "n/a" : String.format(format, v);
    }
}
