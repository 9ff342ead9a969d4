package io.kubequeue.admission;

import java.util.List;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import io.kubequeue.events.EventRecorder;
import io.kubequeue.job.JobDirectory;
import io.kubequeue.scheduler.model.CycleResult;
import io.kubequeue.scheduler.model.Explanation;
import io.kubequeue.scheduler.model.Hold;
import io.kubequeue.scheduler.model.JobKey;

/**
 * The events a scheduling cycle's decisions give the jobs, written by the admission loop after each cycle (off the
 * API server's path: {@link EventRecorder} writes on its own thread): {@code Pending} for a job that did not fit for
 * the first time since it was queued, {@code NoQuotaGroup} or {@code NeverFits} for a job newly held, and
 * {@code Reclaiming} for the preemptor of a reclaim that started. Admissions and evictions get theirs once written
 * ({@link Admitter}, {@link Evicter}). A job no longer in the {@link JobDirectory} gets none.
 *
 * <p>An Event is read by whoever may read events in its job's namespace, so it names only jobs of that namespace
 * ({@link #sameNamespace}): another team's job is "a job in quota group G" (docs/security.md, "Reasons per reader").
 */
final class CycleEvents {

    private final JobDirectory directory;
    private final EventRecorder events;
    private final Function<JobKey, List<Explanation>> unblock;

    CycleEvents(JobDirectory directory, EventRecorder events) {
        this(directory, events, key -> List.of());
    }

    /**
     * @param unblock the least that would admit a pending job now ({@code Forecasting.unblock}), appended to its
     *                {@code Pending} event; {@code key -> List.of()} for none (estimates off)
     */
    CycleEvents(JobDirectory directory, EventRecorder events, Function<JobKey, List<Explanation>> unblock) {
        this.directory = directory;
        this.events = events;
        this.unblock = unblock;
    }

    /** Writes the events of one cycle's decisions. */
    void write(CycleResult result) {
        for (CycleResult.Unschedulable u : result.unschedulable()) {
            directory.get(u.key()).ifPresent(entry -> events.normal(entry.ref(), "Pending",
                    (u.reason() == null ? "does not fit now" : u.reason().render(sameNamespace(u.key())))
                            + "; waits in quota group " + u.group() + hint(u.key())));
        }
        for (Hold hold : result.holds()) {
            directory.get(hold.key()).ifPresent(entry -> events.warning(entry.ref(),
                    hold.kind() == Hold.Reason.NO_QUOTA_GROUP ? "NoQuotaGroup" : "NeverFits",
                    hold.reason().render(sameNamespace(hold.key())) + "; the job stays suspended"));
        }
        for (CycleResult.Reclaim reclaim : result.reclaims()) {
            directory.get(reclaim.preemptor()).ifPresent(entry -> events.normal(entry.ref(), "Reclaiming",
                    reclaiming(reclaim)));
        }
    }

    /**
     * The unblock hint of a {@code Pending} event, rendered as its reason is (other namespaces' jobs are "a job in
     * quota group G"), e.g. "; to admit it now: raise max cpu of quota group root.a by 2; raise max cpu of quota group
     * root by 2; a job in quota group root.a ending (expected 2026-03-01T10:15:00Z)": the lines of
     * {@code Forecasting.unblock} in its order, joined by "; " (a change on each node short of room is needed
     * together; a job ending is another way). Empty when there is none. A failure to compute it costs the
     * hint, never the event.
     */
    String hint(JobKey key) {
        List<Explanation> lines;
        try {
            lines = unblock.apply(key);
        } catch (RuntimeException e) {
            return "";
        }
        if (lines == null || lines.isEmpty()) {
            return "";
        }
        return "; to admit it now: " + lines.stream().map(l -> l.render(sameNamespace(key)))
                .collect(Collectors.joining("; "));
    }

    /**
     * The preemptor's {@code Reclaiming} message, e.g. "waits for 2 jobs of borrowing groups to stop: Job
     * team-b/etl-7, Job team-b/etl-8; quota group root.a reclaims its min".
     */
    static String reclaiming(CycleResult.Reclaim reclaim) {
        int n = reclaim.victims().size();
        return "waits for " + n + (n == 1 ? " job" : " jobs") + " of borrowing groups to stop: "
                + reclaim.victimsExplained().render(sameNamespace(reclaim.preemptor()))
                + "; quota group " + reclaim.group() + " reclaims its min";
    }

    /**
     * Who reads an Event on {@code job}: those who may read events in its namespace. They may see the jobs of that
     * namespace, and no other (Events are namespaced; docs/security.md).
     */
    static Predicate<JobKey> sameNamespace(JobKey job) {
        return other -> other.namespace().equals(job.namespace());
    }
}
