package io.kubequeue.job;

/** Annotation and label keys kube-queue reads or writes on jobs (docs/behaviour.md §1, §3). */
public final class Annotations {

    /** Admission record: the quota group the job was charged to. */
    public static final String QUOTA_GROUP = "kube-queue/quota-group";
    /** Admission record: when it was admitted, RFC 3339. */
    public static final String ADMITTED_AT = "kube-queue/admitted-at";
    /**
     * Why kube-queue suspended the job again, while it is suspended because of it: {@code reclaim} or {@code timeout}
     * (docs/policies.md); empty once it is admitted again.
     */
    public static final String EVICTED = "kube-queue/evicted";
    /**
     * For a reclaim's victim: the job it was suspended for, {@code Kind/namespace/name} sealed with the record key
     * ({@link RecordSignatures#seal}: that job is another team's, and the victim's team reads this annotation); it is
     * not admitted again before that job is. Empty otherwise.
     */
    public static final String EVICTED_FOR = "kube-queue/evicted-for";
    /** When the job was a reclaim's victim in the last hour: RFC 3339 times, comma-separated, oldest first. */
    public static final String RECLAIMED_AT = "kube-queue/reclaimed-at";
    /** When the job's admission timed out in the last hour: RFC 3339 times, comma-separated, oldest first. */
    public static final String TIMED_OUT_AT = "kube-queue/timed-out-at";
    /**
     * Admission record: the request the admission was decided at (a started-outside charge: the request then), JSON
     * of quantities ({@link AdmittedRequests}); a running job is charged at least this (docs/behaviour.md, "A running
     * job's charge"), also after a restart. Written with the record, in the same patch; signed when not empty.
     */
    public static final String ADMITTED_REQUEST = "kube-queue/admitted-request";
    /**
     * kube-queue's signature over the job's uid and the six annotations above ({@link RecordFields}): a record or
     * history without a valid one was not written by kube-queue and is read as absent ({@link RecordSignatures}).
     */
    public static final String RECORD_SIGNATURE = "kube-queue/record-signature";
    /**
     * A pod of the job ran under the admission whose {@link #ADMITTED_AT} this holds: that time, a space, and
     * kube-queue's signature over the uid and the record ({@link RecordSignatures#podRanMark}). Written once per
     * admission, when the job's group has an admission timeout, so that a restart does not time out a job that ran.
     */
    public static final String POD_RAN = "kube-queue/pod-ran";
    /**
     * Written by the job's owner: how long the job is expected to run once admitted, a Go-style duration such as
     * {@code 90m}, {@code 1h30m} or {@code 45s}, positive and at most 366 days ({@link RunTimeFields#expectedDuration}).
     * The start-time estimates take it instead of the history of alike jobs (issue 30; docs/observability.md,
     * "Start-time estimates"); no decision reads it. A value that does not read gets one Warning event
     * ({@code InvalidExpectedDuration}) and is read as absent; the job queues as usual.
     */
    public static final String EXPECTED_DURATION = "kube-queue/expected-duration";
    /** Label naming the job's ElasticQuotaTree node, overriding the namespace. */
    public static final String QUOTA_NAME_LABEL = "quota.scheduling.alibabacloud.com/name";
    /** Label that makes a job non-preemptible when {@code "false"}. */
    public static final String PREEMPTIBLE_LABEL = "quota.scheduling.alibabacloud.com/preemptible";

    private Annotations() {
    }
}
