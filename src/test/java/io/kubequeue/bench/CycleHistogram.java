package io.kubequeue.bench;

import java.math.BigDecimal;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * The scheduling cycle's duration histogram as kube-queue publishes it ({@code <series>_bucket{le="…"}}, cumulative
 * counts), read at two moments, so that a run's p50 and p99 are those of the cycles run between them and not of
 * Micrometer's decaying window (about the last two minutes, whatever ran then).
 *
 * <p>Quantiles are estimated as Prometheus' {@code histogram_quantile} does: the bucket holding the rank, linear
 * within it; a rank in the {@code +Inf} bucket gives the highest finite bound. The buckets are kube-queue's own
 * (50 µs to 5 s, about 2 × apart), so a figure is good to about a bucket's width.
 *
 * @param buckets upper bound (seconds, {@code +Inf} as {@link Double#POSITIVE_INFINITY}) → cumulative count
 */
record CycleHistogram(NavigableMap<Double, Double> buckets) {

    /** No buckets: kube-queue does not publish the histogram. */
    static final CycleHistogram NONE = new CycleHistogram(new TreeMap<>());

    /**
     * The buckets of {@code series} in Prometheus' text format ({@code name_bucket{le="0.001",} 12.0}).
     */
    static CycleHistogram parse(String metricsText, String series) {
        TreeMap<Double, Double> buckets = new TreeMap<>();
        String prefix = series + "_bucket{";
        for (String line : metricsText.split("\n")) {
            if (!line.startsWith(prefix)) {
                continue;
            }
            int le = line.indexOf("le=\"");
            if (le < 0) {
                continue;
            }
            int end = line.indexOf('"', le + 4);
            String bound = line.substring(le + 4, end);
            double upper = bound.equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(bound);
            double count = new BigDecimal(line.substring(line.lastIndexOf(' ') + 1).trim()).doubleValue();
            buckets.merge(upper, count, Double::sum);
        }
        return new CycleHistogram(buckets);
    }

    /** The cycles counted since {@code before} (a reading of the same series), bucket by bucket. */
    CycleHistogram since(CycleHistogram before) {
        TreeMap<Double, Double> delta = new TreeMap<>();
        for (Map.Entry<Double, Double> b : buckets.entrySet()) {
            delta.put(b.getKey(), b.getValue() - before.buckets.getOrDefault(b.getKey(), 0.0));
        }
        return new CycleHistogram(delta);
    }

    /** Cycles counted. */
    double count() {
        return buckets.isEmpty() ? 0 : buckets.lastEntry().getValue();
    }

    /**
     * The {@code q} quantile (0 < q ≤ 1), seconds; NaN without buckets or without cycles.
     */
    double quantile(double q) {
        double total = count();
        if (!(total > 0)) {
            return Double.NaN;
        }
        double rank = q * total;
        double lower = 0;
        double below = 0;
        for (Map.Entry<Double, Double> b : buckets.entrySet()) {
            double upper = b.getKey();
            double cumulative = b.getValue();
            if (cumulative >= rank) {
                if (Double.isInfinite(upper)) {
                    return lower;
                }
                double inBucket = cumulative - below;
                return inBucket <= 0 ? upper : lower + (upper - lower) * (rank - below) / inBucket;
            }
            lower = upper;
            below = cumulative;
        }
        return lower;
    }
}
