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
import io.kubequeue.scheduler.model.JobKey;

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
     */
    public record Entry(JobKind<?> kind, JobKey key, String apiVersion, String objectKind,
                        String uid, List<SuspendMark> marks, boolean annotationsPresent, String resourceVersion,
                        SuspendMark stopMark, boolean evictionMarked, RecordFields.History history) {

        /**
         * The marks as one shared list per distinct list ({@link SuspendMark#shared}) and no eviction history as
         * {@link RecordFields.History#NONE}: an entry is kept per managed job, and these repeat from job to job
         * (issue 27: some 70 bytes per pending job).
         */
        public Entry {
            marks = marks == null ? null : SuspendMark.shared(marks);
            history = history == null || history.equals(RecordFields.History.NONE) ? RecordFields.History.NONE
                    : history;
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
                    resourceVersion, stopMark, evictionMarked, history);
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

    private final Map<JobKey, Entry> entries = new ConcurrentHashMap<>();

    /**
     * The instance of {@code key} the directory holds, if it knows the job; else {@code key} itself. Each read of a
     * job makes a new key; handing the scheduler the one already held keeps one per job (issue 27: a second JobKey,
     * 24 bytes, per job seen more than once).
     */
    public JobKey known(JobKey key) {
        Entry entry = entries.get(key);
        return entry != null && key.equals(entry.key()) ? entry.key() : key;
    }

    /** Records what was last seen of a managed job. A pod is traced to its job by its kind ({@code JobPods#jobOf}). */
    public void put(JobKey key, Entry entry) {
        entries.put(key, entry);
    }

    /** Forgets a job that finished or was deleted. */
    public void remove(JobKey key) {
        entries.remove(key);
    }

    /** What was last seen of a job; empty if it is not managed or gone. */
    public Optional<Entry> get(JobKey key) {
        return Optional.ofNullable(entries.get(key));
    }
}
