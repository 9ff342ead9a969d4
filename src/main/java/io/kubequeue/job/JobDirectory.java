package io.kubequeue.job;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.inject.Singleton;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.kubequeue.scheduler.JobKey;

/**
 * The little that admission and events need about each managed job, as last seen: its kind, a reference to
 * hang events on, and its suspend marks. Whole objects are not kept (15,000 jobs would cost hundreds of MiB).
 */
@Singleton
public class JobDirectory {

    /**
     * @param kind               the job's kind adapter
     * @param key                the job's key: its kind, namespace and name; the instance the directory and the
     *                           scheduler hold ({@link #known})
     * @param apiVersion         the job's apiVersion, for the reference events hang on ({@link #ref()})
     * @param objectKind         the job's kind as the object says it, e.g. {@code Job}
     * @param uid                the job's uid; null if not known
     * @param marks              the suspend marks seen
     * @param annotationsPresent whether {@code metadata.annotations} holds at least one key. A JSON Patch
     *                           {@code add} of one annotation needs the map to exist, and the API server never
     *                           stores an empty map, so an empty one (as fabric8 shows an absent one) is absent
     * @param resourceVersion    the version seen, to bind a patch that replaces the whole annotation map to it
     * @param stopMark           the mark that would stop the job if set now ({@link StopsWhenSuspended#stopMark}),
     *                           what an eviction sets; null if its kind has none or this job would not stop
     * @param evictionMarked     whether it carries a non-empty {@link Annotations#EVICTED} or
     *                           {@link Annotations#EVICTED_FOR}, trusted or not: what its next admission clears, so
     *                           that a later suspension by its user is not read as kube-queue's eviction
     * @param history            the eviction histories it carries that kube-queue wrote ({@link RecordSignatures}):
     *                           what its next admission or started-outside record writes back, signed
     * @param podLabels          the labels the job's controller sets on its pods, as the directory recorded them
     *                           ({@link JobDirectory#putPodLabels}); empty in an entry not recorded yet
     */
    public record Entry(JobKind<?> kind, JobKey key, String apiVersion, String objectKind,
                        String uid, List<SuspendMark> marks, boolean annotationsPresent, String resourceVersion,
                        SuspendMark stopMark, boolean evictionMarked, RecordFields.History history,
                        List<PodLabel> podLabels) {

        /**
         * The marks as one shared list per distinct list ({@link SuspendMark#shared}) and no eviction history as
         * {@link RecordFields.History#NONE}: an entry is kept per managed job, and these repeat from job to job
         * (issue 27: some 70 bytes per pending job).
         */
        public Entry {
            marks = marks == null ? null : SuspendMark.shared(marks);
            history = history == null || history.equals(RecordFields.History.NONE) ? RecordFields.History.NONE
                    : history;
            podLabels = podLabels == null ? List.of() : podLabels;
        }

        /** An entry with no pod labels recorded yet. */
        public Entry(JobKind<?> kind, JobKey key, String apiVersion, String objectKind, String uid,
                     List<SuspendMark> marks, boolean annotationsPresent, String resourceVersion, SuspendMark stopMark,
                     boolean evictionMarked, RecordFields.History history) {
            this(kind, key, apiVersion, objectKind, uid, marks, annotationsPresent, resourceVersion, stopMark,
                    evictionMarked, history, List.of());
        }

        /** An entry of a job referred to by {@code ref} (apiVersion, kind, namespace, name, uid; may be null). */
        public Entry(JobKind<?> kind, ObjectReference ref, List<SuspendMark> marks, boolean annotationsPresent,
                     String resourceVersion, SuspendMark stopMark, boolean evictionMarked,
                     RecordFields.History history) {
            this(kind, ref == null ? null : new JobKey(ref.getKind(), ref.getNamespace(), ref.getName()),
                    ref == null ? null : ref.getApiVersion(), ref == null ? null : ref.getKind(),
                    ref == null ? null : ref.getUid(), marks, annotationsPresent, resourceVersion, stopMark,
                    evictionMarked, history);
        }

        /** An entry of a job that is never evicted and carries no eviction mark. */
        public Entry(JobKind<?> kind, ObjectReference ref, List<SuspendMark> marks, boolean annotationsPresent,
                     String resourceVersion) {
            this(kind, ref, marks, annotationsPresent, resourceVersion, null, false, RecordFields.History.NONE);
        }

        /** The job's namespace. */
        public String namespace() {
            return key == null ? null : key.namespace();
        }

        /** The job's name. */
        public String name() {
            return key == null ? null : key.name();
        }

        /**
         * The job's reference for its events, made when asked for: kept as its parts, an entry holds no reference
         * object (48 bytes per job kept, issue 27). Its map of additional properties is the shared empty one: nothing
         * adds properties to a reference.
         */
        public ObjectReference ref() {
            ObjectReference ref = new ObjectReferenceBuilder().withApiVersion(apiVersion).withKind(objectKind)
                    .withNamespace(namespace()).withName(name()).withUid(uid).build();
            ref.setAdditionalProperties(Map.of());
            return ref;
        }

        /** The same entry with other marks (a write that removes none). */
        public Entry withMarks(List<SuspendMark> others) {
            return new Entry(kind, key, apiVersion, objectKind, uid, others, annotationsPresent,
                    resourceVersion, stopMark, evictionMarked, history, podLabels);
        }

        /** The same entry with these pod labels recorded. */
        Entry withPodLabels(List<PodLabel> labels) {
            return new Entry(kind, key, apiVersion, objectKind, uid, marks, annotationsPresent,
                    resourceVersion, stopMark, evictionMarked, history, labels);
        }

        /**
         * What is kept of a job as seen, with the marks it carries (or none, for a write that removes none), and the
         * eviction histories kube-queue wrote on it ({@code trusted}, {@link RecordSignatures.Reading#trusted}).
         */
        public static Entry of(JobKind<?> kind, HasMetadata job, List<SuspendMark> marks, RecordFields.History trusted) {
            return of(new JobKey(kind == null ? job.getKind() : kind.kind(), job.getMetadata().getNamespace(),
                    job.getMetadata().getName()), kind, job, marks, trusted);
        }

        /**
         * As {@link #of(JobKind, HasMetadata, List, RecordFields.History)}, under the job's key as the directory
         * holds it ({@link JobDirectory#known}).
         */
        @SuppressWarnings({"unchecked", "rawtypes"})
        public static Entry of(JobKey key, JobKind<?> kind, HasMetadata job, List<SuspendMark> marks,
                               RecordFields.History trusted) {
            ObjectMeta meta = job.getMetadata();
            Map<String, String> annotations = meta.getAnnotations();
            SuspendMark stopMark = kind instanceof StopsWhenSuspended stops
                    ? (SuspendMark) stops.stopMark(job).orElse(null) : null;
            boolean evictionMarked = annotations != null && (notEmpty(annotations.get(Annotations.EVICTED))
                    || notEmpty(annotations.get(Annotations.EVICTED_FOR)));
            return new Entry(kind, key, job.getApiVersion(), job.getKind(), meta.getUid(), marks,
                    annotations != null && !annotations.isEmpty(), meta.getResourceVersion(), stopMark, evictionMarked,
                    trusted);
        }

        /** As {@link #of(JobKind, HasMetadata, List, RecordFields.History)}, with no eviction history trusted. */
        public static Entry of(JobKind<?> kind, HasMetadata job, List<SuspendMark> marks) {
            return of(kind, job, marks, RecordFields.History.NONE);
        }

        private static boolean notEmpty(String value) {
            return value != null && !value.isEmpty();
        }
    }

    /**
     * A pod label a job's controller sets, in a namespace: what ties a pod to its job. Its parts are the strings the
     * job's cached copy holds (interned: {@link Pruning}), so one costs 24 bytes, not the 100 of a string made of them.
     */
    public record PodLabel(String namespace, String key, String value) {
    }

    private final Map<JobKey, Entry> entries = new ConcurrentHashMap<>();
    /** Each pod label a job's controller sets → the job; and back, in the job's entry ({@link Entry#podLabels}). */
    private final Map<PodLabel, JobKey> jobByPodLabel = new ConcurrentHashMap<>();

    /**
     * The instance of {@code key} the directory holds, if it knows the job; else {@code key} itself. Each read of a
     * job makes a new key; handing the scheduler the one already held keeps one per job (issue 27: a second JobKey,
     * 24 bytes, per job seen more than once).
     */
    public JobKey known(JobKey key) {
        Entry entry = entries.get(key);
        return entry != null && key.equals(entry.key()) ? entry.key() : key;
    }

    /** Records what was last seen of a managed job; the pod labels recorded for it stay ({@link #putPodLabels}). */
    public void put(JobKey key, Entry entry) {
        entries.compute(key, (k, old) -> old == null || old.podLabels().isEmpty() ? entry
                : entry.withPodLabels(old.podLabels()));
    }

    /**
     * Records the labels the job's controller puts on its pods (see {@link JobKind#podLabels}), so that a pod
     * can be traced back to its job; a job the directory holds no entry for ({@link #put} first) is not recorded.
     * The same labels again change nothing (kept: the instances already held). They are kept in the job's entry, not
     * in a map of their own (issue 27: one map node per job less).
     */
    public void putPodLabels(JobKey key, Map<String, String> podLabels) {
        List<PodLabel> selectors = podLabels.entrySet().stream()
                .map(l -> new PodLabel(key.namespace(), l.getKey(), l.getValue())).toList();
        entries.computeIfPresent(key, (k, entry) -> {
            if (selectors.equals(entry.podLabels())) {
                return entry; // each update of a job brings them again: keep one set of instances, not one per update
            }
            JobKey held = entry.key() != null && entry.key().equals(k) ? entry.key() : k;
            entry.podLabels().forEach(s -> jobByPodLabel.remove(s, held));
            List<PodLabel> kept = List.copyOf(selectors);
            kept.forEach(s -> jobByPodLabel.put(s, held));
            return entry.withPodLabels(kept);
        });
    }

    /**
     * The managed job a pod belongs to, by the pod labels each kind's controller sets; empty for a pod of no
     * managed job.
     *
     * @param namespace the pod's namespace
     * @param labels    the pod's labels
     */
    public Optional<JobKey> jobOfPod(String namespace, Map<String, String> labels) {
        for (Map.Entry<String, String> l : labels.entrySet()) {
            JobKey key = jobByPodLabel.get(new PodLabel(namespace, l.getKey(), l.getValue()));
            if (key != null) {
                return Optional.of(key);
            }
        }
        return Optional.empty();
    }

    /** Forgets a job that finished or was deleted. */
    public void remove(JobKey key) {
        Entry entry = entries.remove(key);
        if (entry != null) {
            entry.podLabels().forEach(s -> jobByPodLabel.remove(s, key));
        }
    }

    /** What was last seen of a job; empty if it is not managed or gone. */
    public Optional<Entry> get(JobKey key) {
        return Optional.ofNullable(entries.get(key));
    }
}
