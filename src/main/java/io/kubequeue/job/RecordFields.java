package io.kubequeue.job;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The six annotations kube-queue writes on a job as one signed set (docs/security.md, "How admission records are
 * trusted"): the admission record ({@link Annotations#QUOTA_GROUP}, {@link Annotations#ADMITTED_AT}) and the eviction
 * marks and histories ({@link Annotations#EVICTED}, {@link Annotations#EVICTED_FOR}, {@link Annotations#RECLAIMED_AT},
 * {@link Annotations#TIMED_OUT_AT}). An absent annotation and an empty one are the same value, {@code ""}: kube-queue
 * reads them alike, and every write of kube-queue's writes all six.
 *
 * @param group       the quota group the job was charged to; {@code ""} if none
 * @param admittedAt  the admission time (RFC 3339) or {@link io.kubequeue.scheduler.AdmissionRecord#STARTED_OUTSIDE}
 * @param evicted     {@code reclaim}, {@code timeout} or {@code ""}
 * @param evictedFor  the preemptor as {@code Kind/namespace/name}, or {@code ""}
 * @param reclaimedAt reclaim times, RFC 3339, comma-separated, or {@code ""}
 * @param timedOutAt  admission-timeout times, RFC 3339, comma-separated, or {@code ""}
 */
public record RecordFields(String group, String admittedAt, String evicted, String evictedFor, String reclaimedAt,
                           String timedOutAt) {

    /** The keys of the signed set, in the order they are signed. */
    public static final List<String> KEYS = List.of(Annotations.QUOTA_GROUP, Annotations.ADMITTED_AT,
            Annotations.EVICTED, Annotations.EVICTED_FOR, Annotations.RECLAIMED_AT, Annotations.TIMED_OUT_AT);

    /** None of the six: a job kube-queue has written nothing on. */
    public static final RecordFields NONE = new RecordFields("", "", "", "", "", "");

    /** Null values read as {@code ""}. */
    public RecordFields {
        group = orEmpty(group);
        admittedAt = orEmpty(admittedAt);
        evicted = orEmpty(evicted);
        evictedFor = orEmpty(evictedFor);
        reclaimedAt = orEmpty(reclaimedAt);
        timedOutAt = orEmpty(timedOutAt);
    }

    /** The six as a job's annotations hold them; null (no annotations) reads as {@link #NONE}. */
    public static RecordFields of(Map<String, String> annotations) {
        if (annotations == null || annotations.isEmpty()) {
            return NONE;
        }
        return new RecordFields(annotations.get(Annotations.QUOTA_GROUP), annotations.get(Annotations.ADMITTED_AT),
                annotations.get(Annotations.EVICTED), annotations.get(Annotations.EVICTED_FOR),
                annotations.get(Annotations.RECLAIMED_AT), annotations.get(Annotations.TIMED_OUT_AT));
    }

    /** An admission record and nothing else of the set (histories, if any, given by {@code history}). */
    public static RecordFields admission(String group, String admittedAt, History history) {
        return new RecordFields(group, admittedAt, "", "", history.reclaimedAt(), history.timedOutAt());
    }

    /** Whether any of the six holds a value. */
    public boolean present() {
        return !equals(NONE);
    }

    /** The values in {@link #KEYS} order. */
    public List<String> values() {
        return List.of(group, admittedAt, evicted, evictedFor, reclaimedAt, timedOutAt);
    }

    /** The six as annotations, in {@link #KEYS} order, empty ones included (what a write of kube-queue's sets). */
    public Map<String, String> asAnnotations() {
        Map<String, String> annotations = new LinkedHashMap<>();
        List<String> values = values();
        for (int i = 0; i < KEYS.size(); i++) {
            annotations.put(KEYS.get(i), values.get(i));
        }
        return annotations;
    }

    /** The eviction histories of the set, which outlive an admission (they count evictions per hour). */
    public History history() {
        return new History(reclaimedAt, timedOutAt);
    }

    /**
     * A job's eviction histories as written: {@link Annotations#RECLAIMED_AT} and {@link Annotations#TIMED_OUT_AT}.
     *
     * @param reclaimedAt RFC 3339 times, comma-separated, or {@code ""}
     * @param timedOutAt  RFC 3339 times, comma-separated, or {@code ""}
     */
    public record History(String reclaimedAt, String timedOutAt) {

        /** No eviction history. */
        public static final History NONE = new History("", "");

        public History {
            reclaimedAt = orEmpty(reclaimedAt);
            timedOutAt = orEmpty(timedOutAt);
        }
    }

    private static String orEmpty(String value) {
        return value == null ? "" : value;
    }
}
