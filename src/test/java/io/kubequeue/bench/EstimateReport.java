package io.kubequeue.bench;

import java.io.PrintStream;
import java.util.List;
import java.util.Map;

/**
 * Prints the start-time estimates' figures of each kube-queue run (issue 30, "Measured, not assumed"): per class
 * and overall, at submission and at 25, 50 and 75 % of the wait, how many estimates were read and their median and
 * p90 error as a fraction of the wait, each marked met or MISSED against the targets (median ≤ 20 %, p90 ≤ 50 %,
 * stated for the baseline); what the reads cost; the replays' share of kube-queue's CPU (≤ 10 %); the what-if's
 * answer time (&lt; 1 s). On the baseline the same targets are PASS/FAIL lines among the report's targets.
 */
final class EstimateReport {

    static final String NOT_SERVED = "estimates: not served by this kube-queue";

    private final PrintStream out;

    EstimateReport(PrintStream out) {
        this.out = out;
    }

    void print(List<RunResult> results) {
        for (RunResult r : results) {
            if (r.isReference() || r.estimates() == null) {
                continue;
            }
            EstimateFigures e = r.estimates();
            EstimatePoller.Result poll = e.poll();
            out.printf("%n== start-time estimates, %s, %s: %,d admitted jobs%s ==%n", r.load(), r.label(), e.jobs(),
                    e.warmUp() == 0 ? "" : String.format(" (the first phase's %,d left out: they warm up the history)",
                            e.warmUp()));
            double[] read = EstimateError.medianAndMax(poll.readMillis());
            double readSeconds = poll.readMillis().stream().mapToDouble(Double::doubleValue).sum() / 1000;
            out.printf("reads of /api/v1/queues/{group}/jobs: %,d (%,d failed), answer p50 %.1f ms, max %.1f ms, %.2f s in"
                    + " all (%s of kube-queue's CPU time at most), %,.0f KiB; %,d pending jobs read, %,d without an"
                    + " estimate%n", poll.reads(), poll.failures(), read[0], read[1], readSeconds,
                    EstimateReport.percent(e.cpuSeconds() <= 0 ? Double.NaN : readSeconds / e.cpuSeconds()),
                    poll.bytes() / 1024.0, poll.jobsRead(), poll.withoutEstimate());
            if (poll.firstFailure() != null) {
                out.println("!! first failed read: " + poll.firstFailure());
            }
            if (!poll.served()) {
                out.printf("%s (no pending job came with an \"estimate\" in %,d reads)%n", NOT_SERVED, poll.reads());
            } else {
                table(r, e);
            }
            out.println(cpu(e));
            out.println(whatIf(e));
        }
    }

    private void table(RunResult r, EstimateFigures e) {
        String note = r.load().equals("baseline") ? "" : " (the targets are stated for the baseline)";
        out.printf("error = |eta − admission seen| ÷ wait, the estimate read nearest each point; targets median ≤ %.0f %%,"
                + " p90 ≤ %.0f %%%s%n", EstimateError.MEDIAN_TARGET * 100, EstimateError.P90_TARGET * 100, note);
        String header = "%-8s %-14s %8s %8s %17s %17s %10s  %s%n";
        out.printf(header, "class", "point", "jobs", "samples", "median", "p90", "offset", "nearest read not ESTIMATED");
        for (Map.Entry<String, EstimateError.Cell[]> row : e.cells().entrySet()) {
            for (int i = 0; i < EstimateError.POINTS.length; i++) {
                EstimateError.Cell c = row.getValue()[i];
                out.printf(header, row.getKey(), EstimateError.POINT_NAMES.get(i), String.format("%,d", c.jobs()),
                        String.format("%,d", c.samples()), figure(c.median(), c.medianMet()), figure(c.p90(), c.p90Met()),
                        percent(c.offset()), EstimateError.describeOthers(c));
            }
        }
        out.println("(offset: how far the read picked lay from its point, median, a fraction of the wait: the polling's"
                + " resolution)");
    }

    static String cpu(EstimateFigures e) {
        if (Double.isNaN(e.refreshSeconds())) {
            return "estimates' CPU: " + EstimateFigures.REFRESH_SERIES + " not published by this kube-queue";
        }
        return String.format("estimates' CPU: replays %.2f s (Δ%s, their thread's CPU time; Δ%s_sum, their wall time, on"
                        + " a kube-queue without it) of kube-queue's %.2f s CPU: %s, target ≤ %.0f %%: %s",
                e.refreshSeconds(), EstimateFigures.REFRESH_CPU_SERIES, EstimateFigures.REFRESH_SERIES,
                e.cpuSeconds(), percent(e.cpuShare()), EstimateFigures.CPU_SHARE_TARGET * 100,
                e.cpuShare() <= EstimateFigures.CPU_SHARE_TARGET ? "met" : "MISSED");
    }

    static String whatIf(EstimateFigures e) {
        EstimatePoller.Result poll = e.poll();
        if (poll.whatIfStatuses().isEmpty()) {
            return "what-if: not asked (the submissions did not end while the run was read)";
        }
        if (!poll.whatIfServed()) {
            return "what-if: not served by this kube-queue (POST /api/v1/what-if answered " + poll.whatIfStatuses() + ")";
        }
        if (poll.whatIfMillis().isEmpty()) {
            return "what-if: no answer 200 of " + poll.whatIfStatuses().size() + " (" + poll.whatIfStatuses() + "; first: "
                    + poll.whatIfRejected() + ")";
        }
        double[] mm = EstimateError.medianAndMax(poll.whatIfMillis());
        return String.format("what-if at the end of the submissions (the load's own tree, %d asked, %s pending in the"
                        + " answer): median %.0f ms, max %.0f ms, target < %.0f ms: %s", poll.whatIfStatuses().size(),
                poll.whatIfPending() < 0 ? "?" : String.format("%,d", poll.whatIfPending()), mm[0], mm[1],
                EstimateFigures.WHAT_IF_TARGET_MILLIS, mm[1] < EstimateFigures.WHAT_IF_TARGET_MILLIS ? "met" : "MISSED");
    }

    /**
     * The baseline's estimate targets as PASS/FAIL lines: overall median and p90 at each point, the CPU share, the
     * what-if's slowest answer; "not judged" lines when kube-queue does not serve them.
     */
    void targets(List<Boolean> verdicts, List<RunResult> results) {
        for (RunResult r : results) {
            if (!r.load().equals("baseline") || r.isReference()) {
                continue;
            }
            String who = "baseline " + r.label() + ": ";
            EstimateFigures e = r.estimates();
            if (e == null) {
                out.println("---- " + who + "start-time estimates: not judged (not read: --estimate-poll off, or"
                        + " kube-queue gone)");
                continue;
            }
            if (!e.poll().served()) {
                out.println("---- " + who + "estimate error: not judged (" + NOT_SERVED + ")");
            } else {
                EstimateError.Cell[] all = e.cells().get(EstimateError.ALL);
                for (int i = 0; i < all.length; i++) {
                    EstimateError.Cell c = all[i];
                    String at = "estimate error at " + EstimateError.POINT_NAMES.get(i) + String.format(" (%,d samples)",
                            c.samples());
                    verdicts.add(line(c.medianMet(), who + at + " median " + percent(c.median()) + " ≤ 20 %"));
                    verdicts.add(line(c.p90Met(), who + at + " p90 " + percent(c.p90()) + " ≤ 50 %"));
                }
            }
            if (Double.isNaN(e.cpuShare())) {
                out.println("---- " + who + "estimates' CPU share: not judged (" + EstimateFigures.REFRESH_SERIES
                        + " not published)");
            } else {
                verdicts.add(line(e.cpuShare() <= EstimateFigures.CPU_SHARE_TARGET, who + String.format(
                        "estimates' replays %.2f s of %.2f s CPU = %s ≤ 10 %%", e.refreshSeconds(), e.cpuSeconds(),
                        percent(e.cpuShare()))));
            }
            if (e.poll().whatIfMillis().isEmpty()) {
                out.println("---- " + who + "what-if answer time: not judged (" + whatIf(e) + ")");
            } else {
                double[] mm = EstimateError.medianAndMax(e.poll().whatIfMillis());
                verdicts.add(line(mm[1] < EstimateFigures.WHAT_IF_TARGET_MILLIS, who + String.format(
                        "what-if answer time max %.0f ms (median %.0f ms) < 1 s", mm[1], mm[0])));
            }
        }
    }

    private boolean line(boolean pass, String text) {
        out.println((pass ? "PASS " : "FAIL ") + text);
        return pass;
    }

    private static String figure(double value, boolean met) {
        return Double.isNaN(value) ? "—" : percent(value) + (met ? " met" : " MISSED");
    }

    static String percent(double fraction) {
        return Double.isNaN(fraction) ? "—" : String.format("%.1f %%", fraction * 100);
    }
}
