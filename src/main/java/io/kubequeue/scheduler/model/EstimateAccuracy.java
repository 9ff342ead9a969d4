package io.kubequeue.scheduler.model;

/**
 * How wrong the start-time estimates were (issue 30): for each job admitted since kube-queue started, the error of its
 * first estimate (made when it was first seen pending) against its actual admission, as a fraction of the wait from
 * that estimate to the admission: |eta − start| / wait. Over the last {@code window} admissions.
 *
 * @param samples how many admissions the figures rest on (0: no figure yet)
 * @param median  the median relative error (0.2 = 20 % of the wait); NaN with no samples
 * @param p90     the 90th-percentile relative error; NaN with no samples
 */
public record EstimateAccuracy(int samples, double median, double p90) {
    /** No admission measured yet. */
    public static final EstimateAccuracy NONE = new EstimateAccuracy(0, Double.NaN, Double.NaN);
}
