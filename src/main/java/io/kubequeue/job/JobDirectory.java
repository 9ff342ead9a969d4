package io.kubequeue.job;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.inject.Singleton;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.kubequeue.events.EventRecorder;
import io.kubequeue.scheduler.JobKey;

/**
 * The little that admission and events need about each managed job, as last seen: its kind, a reference to
 * hang events on, and its suspend marks. Whole objects are not kept (15,000 jobs would cost hundreds of MiB).
 */
@Singleton
public class JobDirectory {

    /**
     * @param kind               the job's kind adapter
     * @param ref                apiVersion, kind, namespace, name and uid
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
    public record Entry(JobKind<?> kind, ObjectReference ref, List<SuspendMark> marks, boolean annotationsPresent,
                        String resourceVersion, SuspendMark stopMark, boolean evictionMarked,
                        RecordFields.History history) {

        public Entry {
            history = history == null ? RecordFields.History.NONE : history;
        }

        /** An entry of a job that is never evicted and carries no eviction mark. */
        public Entry(JobKind<?> kind, ObjectReference ref, List<SuspendMark> marks, boolean annotationsPresent,
                     String resourceVersion) {
            this(kind, ref, marks, annotationsPresent, resourceVersion, null, false, RecordFields.History.NONE);
        }

        /** The same entry with other marks (a write that removes none). */
        public Entry withMarks(List<SuspendMark> others) {
            return new Entry(kind, ref, others, annotationsPresent, resourceVersion, stopMark, evictionMarked, history);
        }

        /**
         * What is kept of a job as seen, with the marks it carries (or none, for a write that removes none), and the
         * eviction histories kube-queue wrote on it ({@code trusted}, {@link RecordSignatures.Reading#trusted}).
         */
        @SuppressWarnings({"unchecked", "rawtypes"})
        public static Entry of(JobKind<?> kind, HasMetadata job, List<SuspendMark> marks, RecordFields.History trusted) {
            Map<String, String> annotations = job.getMetadata().getAnnotations();
            SuspendMark stopMark = kind instanceof StopsWhenSuspended stops
                    ? (SuspendMark) stops.stopMark(job).orElse(null) : null;
            boolean evictionMarked = annotations != null && (notEmpty(annotations.get(Annotations.EVICTED))
                    || notEmpty(annotations.get(Annotations.EVICTED_FOR)));
            return new Entry(kind, compactRef(job), marks, annotations != null && !annotations.isEmpty(),
                    job.getMetadata().getResourceVersion(), stopMark, evictionMarked, trusted);
        }

        /** As {@link #of(JobKind, HasMetadata, List, RecordFields.History)}, with no eviction history trusted. */
        public static Entry of(JobKind<?> kind, HasMetadata job, List<SuspendMark> marks) {
            return of(kind, job, marks, RecordFields.History.NONE);
        }

        /**
         * The job's reference for its events, without a map of its own for additional properties (fabric8 gives each
         * reference an empty {@code LinkedHashMap}, 56 bytes per job kept: issue 27, memory per pending job). The
         * shared empty map is unmodifiable: nothing adds properties to a reference.
         */
        static ObjectReference compactRef(HasMetadata job) {
            ObjectReference ref = EventRecorder.refOf(job);
            ref.setAdditionalProperties(Map.of());
            return ref;
        }

        private static boolean notEmpty(String value) {
            return value != null && !value.isEmpty();
        }
    }

    private final Map<JobKey, Entry> entries = new ConcurrentHashMap<>();
    /** "namespace label=value" of each pod label a job's controller sets → the job; and back. */
    private final Map<String, JobKey> jobByPodLabel = new ConcurrentHashMap<>();
    private final Map<JobKey, List<String>> podLabelsOfJob = new ConcurrentHashMap<>();

    /** Records what was last seen of a managed job. */
    public void put(JobKey key, Entry entry) {
        entries.put(key, entry);
    }

    /**
     * Records the labels the job's controller puts on its pods (see {@link JobKind#podLabels}), so that a pod
     * can be traced back to its job.
     */
    public void putPodLabels(JobKey key, Map<String, String> podLabels) {
        List<String> selectors = podLabels.entrySet().stream()
                .map(l -> key.namespace() + " " + l.getKey() + "=" + l.getValue()).toList();
        List<String> old = podLabelsOfJob.put(key, selectors);
        if (old != null && !old.equals(selectors)) {
            old.forEach(s -> jobByPodLabel.remove(s, key));
        }
        selectors.forEach(s -> jobByPodLabel.put(s, key));
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
            JobKey key = jobByPodLabel.get(namespace + " " + l.getKey() + "=" + l.getValue());
            if (key != null) {
                return Optional.of(key);
            }
        }
        return Optional.empty();
    }

    /** Forgets a job that finished or was deleted. */
    public void remove(JobKey key) {
        entries.remove(key);
        List<String> selectors = podLabelsOfJob.remove(key);
        if (selectors != null) {
            selectors.forEach(s -> jobByPodLabel.remove(s, key));
        }
    }

    /** What was last seen of a job; empty if it is not managed or gone. */
    public Optional<Entry> get(JobKey key) {
        return Optional.ofNullable(entries.get(key));
    }
}
