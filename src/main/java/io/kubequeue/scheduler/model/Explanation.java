package io.kubequeue.scheduler.model;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * Why a job waits (or was held, or is evicted), as the core words it: text in which other jobs appear as references,
 * not as names, so that each reader is told only what they may see (docs/security.md, "Reasons per reader"). A
 * reference renders as {@code Kind namespace/name} for a reader who may see that job, else as "a job in quota group
 * G": the group's name is visible to everyone who can see the tree, the job (and so its namespace and owner) is not.
 *
 * <p>{@link #toString()} names every job: for kube-queue's own log lines and for tests, never for a tenant. What a
 * tenant reads (the read API, the dry run, an Event on a job) is {@link #render(Predicate)}.
 */
public final class Explanation {

    /** A job named in an explanation, with the quota group a reader who may not see it is told instead. */
    private record JobRef(JobKey key, String group) {
    }

    private static final Explanation EMPTY = new Explanation(List.of());

    /** Each part is a {@link String} or a {@link JobRef}. */
    private final List<Object> parts;

    private Explanation(List<Object> parts) {
        this.parts = parts;
    }

    /** Plain text that names no job. */
    public static Explanation of(String text) {
        return text == null || text.isEmpty() ? EMPTY : new Explanation(List.of(text));
    }

    /** The empty explanation. */
    public static Explanation empty() {
        return EMPTY;
    }

    /**
     * A reference to one job.
     *
     * @param key   the job
     * @param group the quota group it queues in or is charged to, told to a reader who may not see the job; null if
     *              it has none ("a job in no quota group")
     */
    public static Explanation job(JobKey key, String group) {
        return new Explanation(List.of(new JobRef(Objects.requireNonNull(key, "key"), group)));
    }

    /** This explanation followed by {@code text}. */
    public Explanation then(String text) {
        return then(of(text));
    }

    /** This explanation followed by {@code next}. */
    public Explanation then(Explanation next) {
        if (next.parts.isEmpty()) {
            return this;
        }
        if (parts.isEmpty()) {
            return next;
        }
        List<Object> joined = new ArrayList<>(parts.size() + next.parts.size());
        joined.addAll(parts);
        joined.addAll(next.parts);
        return new Explanation(Collections.unmodifiableList(joined));
    }

    /** This explanation followed by a reference to one job (see {@link #job}). */
    public Explanation then(JobKey key, String group) {
        return then(job(key, group));
    }

    /**
     * Several jobs, e.g. "Job team-b/etl-7, a job in quota group root.b", separated by {@code ", "}.
     *
     * @param keys   the jobs
     * @param groups each job's quota group, in the same order
     * @throws IllegalArgumentException unless there is one group per job
     */
    public static Explanation jobs(List<JobKey> keys, List<String> groups) {
        if (keys.size() != groups.size()) {
            throw new IllegalArgumentException("one group per job: " + keys + " / " + groups);
        }
        Explanation out = EMPTY;
        for (int i = 0; i < keys.size(); i++) {
            out = (i == 0 ? out : out.then(", ")).then(keys.get(i), groups.get(i));
        }
        return out;
    }

    /** Whether this names no job and has no text. */
    public boolean isEmpty() {
        return parts.isEmpty();
    }

    /** The jobs this names, in order (for tests and for callers that decide who may read it). */
    public List<JobKey> jobsNamed() {
        List<JobKey> keys = new ArrayList<>();
        for (Object part : parts) {
            if (part instanceof JobRef ref) {
                keys.add(ref.key());
            }
        }
        return keys;
    }

    /**
     * The text for one reader.
     *
     * @param mayName whether this reader may see a job (e.g. may list its kind in its namespace)
     * @return the explanation, naming the jobs {@code mayName} accepts and saying "a job in quota group G" of the
     *         others
     */
    public String render(Predicate<JobKey> mayName) {
        StringBuilder text = new StringBuilder();
        for (Object part : parts) {
            if (part instanceof JobRef ref) {
                if (mayName.test(ref.key())) {
                    text.append(ref.key());
                } else {
                    text.append(ref.group() == null ? "a job in no quota group" : "a job in quota group " + ref.group());
                }
            } else {
                text.append((String) part);
            }
        }
        return text.toString();
    }

    /** The text naming every job: for kube-queue's own log and for tests, never for a tenant. */
    @Override
    public String toString() {
        return render(key -> true);
    }

    /** Equal when they read the same to every reader: the same parts in the same order. */
    @Override
    public boolean equals(Object o) {
        return o instanceof Explanation other && normalized().equals(other.normalized());
    }

    @Override
    public int hashCode() {
        return normalized().hashCode();
    }

    /** Adjacent texts joined, so that "a" + "b" equals "ab". */
    private List<Object> normalized() {
        List<Object> out = new ArrayList<>(parts.size());
        StringBuilder text = null;
        for (Object part : parts) {
            if (part instanceof String s) {
                text = text == null ? new StringBuilder(s) : text.append(s);
            } else {
                if (text != null) {
                    out.add(text.toString());
                    text = null;
                }
                out.add(part);
            }
        }
        if (text != null) {
            out.add(text.toString());
        }
        return out;
    }
}
