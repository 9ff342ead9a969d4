package io.kubequeue.job;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.inject.Singleton;

import io.fabric8.kubernetes.api.model.ObjectReference;
import io.kubequeue.scheduler.JobKey;

/**
 * The little that admission and events need about each managed job, as last seen: its kind, a reference to
 * hang events on, and its suspend marks. Whole objects are not kept (15,000 jobs would cost hundreds of MiB).
 */
@Singleton
public class JobDirectory {

    /**
     * @param kind            the job's kind adapter
     * @param ref             apiVersion, kind, namespace, name and uid
     * @param marks           the suspend marks seen
     * @param hasAnnotations  whether {@code metadata.annotations} exists (a JSON Patch {@code add} needs its parent)
     */
    public record Entry(JobKind<?> kind, ObjectReference ref, List<SuspendMark> marks, boolean hasAnnotations) {
    }

    private final Map<JobKey, Entry> entries = new ConcurrentHashMap<>();

    /** Records what was last seen of a managed job. */
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
