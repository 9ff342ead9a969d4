package io.kubequeue.job;

/** Annotation and label keys kube-queue reads or writes on jobs (docs/behaviour.md §1, §3). */
public final class Annotations {

    /** Admission record: the quota group the job was charged to. */
    public static final String QUOTA_GROUP = "kube-queue/quota-group";
    /** Admission record: when it was admitted, RFC 3339. */
    public static final String ADMITTED_AT = "kube-queue/admitted-at";
    /** Label naming the job's ElasticQuotaTree node, overriding the namespace. */
    public static final String QUOTA_NAME_LABEL = "quota.scheduling.alibabacloud.com/name";
    /** Label that makes a job non-preemptible when {@code "false"}. */
    public static final String PREEMPTIBLE_LABEL = "quota.scheduling.alibabacloud.com/preemptible";

    private Annotations() {
    }
}
