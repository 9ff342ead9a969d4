package io.kubequeue.admission;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import io.kubequeue.collections.BoundedMaps;
import io.kubequeue.events.EventRecorder;
import io.kubequeue.job.JobDirectory;
import io.kubequeue.scheduler.model.Admission;
import io.kubequeue.scheduler.model.CycleResult;
import io.kubequeue.scheduler.model.JobKey;

/**
 * The {@code Queued} events, said once the cycle that first sees the job has run, and only for a job still pending
 * after it (issue 27): a job that cycle admits gets its {@code Admitted} event and no {@code Queued} one, which would
 * be one more write to the API server for each admission of a burst, telling what the {@code Admitted} right after
 * it makes moot. The job feed hands each queueing here (through {@link FeedToAdmission#deferQueuedEvent}); the
 * admission loop marks each cycle's start ({@link #cycleStarts()}) and end ({@link #cycleEnded}).
 *
 * <p>A queueing is taken only while the loop is open (this replica leads): a follower writes no Normal events, and
 * the jobs it saw queued got their event from the leader of that time. Bounded ({@value #WAITING_KEPT} jobs, the
 * oldest dropped first). Thread-safe.
 */
final class QueuedEvents {

    /** Jobs waiting for their cycle, at most; past it the oldest lose their Queued event. */
    static final int WAITING_KEPT = 50_000;

    private record Waiting(String message, long cycle) {
    }

    private final JobDirectory directory;
    private final EventRecorder events;
    private final Predicate<JobKey> pending;
    private final Map<JobKey, Waiting> waiting = BoundedMaps.keepingNewest(WAITING_KEPT);
    /** The number of the next cycle to start: a queueing taken now is first seen by that cycle (or a later one). */
    private long nextCycle;

    /**
     * @param directory where the job's reference is found when its event is written
     * @param events    where the event goes
     * @param pending   whether the scheduler holds the job as pending now (queued, backing off or held)
     */
    QueuedEvents(JobDirectory directory, EventRecorder events, Predicate<JobKey> pending) {
        this.directory = directory;
        this.events = events;
        this.pending = pending;
    }

    /** A job was queued (first seen, or suspended again); its event waits for the next cycle's end. */
    synchronized void queued(JobKey job, String message) {
        waiting.remove(job); // re-inserted as the newest
        waiting.put(job, new Waiting(message, nextCycle));
    }

    /**
     * A cycle starts (called just before it decides): every job queued so far was handed to the scheduler before it.
     *
     * @return the cycle's number, for {@link #cycleEnded}
     */
    synchronized long cycleStarts() {
        return nextCycle++;
    }

    /**
     * The cycle numbered {@code cycle} ended with {@code result}: the jobs it was the first to see are told
     * {@code Queued} unless it admitted them or they are no longer pending (admitted meanwhile, deleted).
     */
    void cycleEnded(long cycle, CycleResult result) {
        List<Map.Entry<JobKey, Waiting>> seen = new ArrayList<>();
        synchronized (this) {
            for (Iterator<Map.Entry<JobKey, Waiting>> it = waiting.entrySet().iterator(); it.hasNext(); ) {
                Map.Entry<JobKey, Waiting> next = it.next();
                if (next.getValue().cycle() > cycle) {
                    break; // in the order queued, so the cycles' numbers never fall: the rest came later
                }
                seen.add(Map.entry(next.getKey(), next.getValue()));
                it.remove();
            }
        }
        if (seen.isEmpty()) {
            return;
        }
        Set<JobKey> admitted = result.admissions().stream().map(Admission::key).collect(Collectors.toSet());
        for (Map.Entry<JobKey, Waiting> job : seen) {
            if (!admitted.contains(job.getKey()) && pending.test(job.getKey())) {
                directory.get(job.getKey()).ifPresent(entry -> events.normal(entry.ref(), "Queued",
                        job.getValue().message()));
            }
        }
    }

    /** Forgets every job waiting (the loop closed: this replica no longer leads). */
    synchronized void clear() {
        waiting.clear();
    }
}
