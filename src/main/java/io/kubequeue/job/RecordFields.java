package io.kubequeue.job;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The annotations kube-queue writes on a job as one signed set (docs/security.md, "How admission records are
 * trusted"): the admission record ({@link Annotations#QUOTA_GROUP}, {@link Annotations#ADMITTED_AT}) and the eviction
 * marks and histories ({@link Annotations#EVICTED}, {@link Annotations#EVICTED_FOR}, {@link Annotations#RECLAIMED_AT},
 * {@link Annotations#TIMED_OUT_AT}). An absent annotation and an empty one are the same value, {@code ""}: kube-queue
 * reads them alike, and every write of kube-queue's writes all six.
 *
 * @param group       the quota group the job was charged to; {@code ""} if none
 * @param admittedAt  the admission time (RFC 3339) or {@link io.kubequeue.scheduler.model.AdmissionRecord#STARTED_OUTSIDE}
 * @param evicted     {@code reclaim}, {@code timeout} or {@code ""}
 * @param evictedFor  the preemptor as {@code Kind/namespace/name}, or {@code ""}
 * @param reclaimedAt reclaim times, RFC 3339, comma-separated, or {@code ""}
 * @param timedOutAt  admission-timeout times, RFC 3339, comma-separated, or {@code ""}
 * @param admittedRequest the request the admission was decided (or the started-outside charge taken) at, as
 *                    {@link AdmittedRequests} writes it, or {@code ""}: a running job is charged at least this after a
 *                    restart (docs/behaviour.md, "A running job's charge"). An optional field: signed only when not
 *                    empty ({@link RecordSignatures}), so a record signed before it existed still verifies
 */
public record RecordFields(String group, String admittedAt, String evicted, String evictedFor, String reclaimedAt,
                           String timedOutAt, String admittedRequest) {

    /** The keys of the signed set, in the order they are signed (the optional ones last). */
    public static final List<String> KEYS = List.of(Annotations.QUOTA_GROUP, Annotations.ADMITTED_AT,
            Annotations.EVICTED, Annotations.EVICTED_FOR, Annotations.RECLAIMED_AT, Annotations.TIMED_OUT_AT,
            Annotations.ADMITTED_REQUEST);

    /**
     * How many of {@link #KEYS}, from the first, are always signed; each after them is signed, with its key, only when
     * it holds a value (so adding one never invalidates the records already written).
     */
    public static final int ALWAYS_SIGNED = 6;

    /** None of the set: a job kube-queue has written nothing on. */
    public static final RecordFields NONE = new RecordFields("", "", "", "", "", "", "");

    /** The six that every record has, with no admitted request. */
    public RecordFields(String group, String admittedAt, String evicted, String evictedFor, String reclaimedAt,
                        String timedOutAt) {
        this(group, admittedAt, evicted, evictedFor, reclaimedAt, timedOutAt, "");
    }

    /** Null values read as {@code ""}. */
    public RecordFields {
        admittedRequest = orEmpty(admittedRequest);
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
                annotations.get(Annotations.RECLAIMED_AT), annotations.get(Annotations.TIMED_OUT_AT),
                annotations.get(Annotations.ADMITTED_REQUEST));
    }

    /** An admission record and nothing else of the set (histories, if any, given by {@code history}). */
    public static RecordFields admission(String group, String admittedAt, History history) {
        return admission(group, admittedAt, history, "");
    }

    /** An admission record with the request it was decided at ({@link AdmittedRequests#write}), and its histories. */
    public static RecordFields admission(String group, String admittedAt, History history, String admittedRequest) {
        return new RecordFields(group, admittedAt, "", "", history.reclaimedAt(), history.timedOutAt(),
                admittedRequest);
    }

    /** Whether any of the six holds a value. */
    public boolean present() {
        return !equals(NONE);
    }

    /** The values in {@link #KEYS} order. */
    public List<String> values() {
        return List.of(group, admittedAt, evicted, evictedFor, reclaimedAt, timedOutAt, admittedRequest);
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

    /**
     * The eviction histories of the set, which outlive an admission (they count evictions per hour); none is the
     * shared {@link History#NONE}.
     */
    public History history() {
        return reclaimedAt.isEmpty() && timedOutAt.isEmpty() ? History.NONE : new History(reclaimedAt, timedOutAt);
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
