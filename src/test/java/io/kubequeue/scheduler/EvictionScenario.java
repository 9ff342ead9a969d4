package io.kubequeue.scheduler;

import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.kubequeue.scheduler.model.Admission;
import io.kubequeue.scheduler.model.AdmissionOutcome;
import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.CycleResult;
import io.kubequeue.scheduler.model.Eviction;
import io.kubequeue.scheduler.model.EvictionMarks;
import io.kubequeue.scheduler.model.EvictionOutcome;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.JobPriority;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.scheduler.model.JobStatus;
import io.kubequeue.scheduler.model.QuotaNode;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.scheduler.model.SchedulerSettings;

/**
 * A scheduler with a model of the cluster beside it, for the reclaim and eviction tests: jobs are submitted
 * suspended, a cycle's admissions are applied as the API server and the informer would, and an eviction is applied
 * and seen suspended again with the marks it wrote. The tree, unless a test gives another: root (cpu 4 min and max)
 * with team-a (namespace a) and team-b (namespace b), each min 2 and max 4.
 */
final class EvictionScenario {

    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    final MutableClock clock = new MutableClock(T0);
    final Map<JobKey, JobObservation> cluster = new HashMap<>();
    Scheduler scheduler;
    private int version = 1;

    /** Two teams under a 4-cpu root, each guaranteed 2 and allowed to borrow up to 4. */
    static QuotaTree twoTeams() {
        return new QuotaTree(List.of(
                new QuotaNode("root", null, List.of(), Resources.of("cpu", 4000L), Resources.of("cpu", 4000L)),
                new QuotaNode("team-a", "root", List.of("a"), Resources.of("cpu", 2000L), Resources.of("cpu", 4000L)),
                new QuotaNode("team-b", "root", List.of("b"), Resources.of("cpu", 2000L), Resources.of("cpu", 4000L))));
    }

    /** A new scheduler (a start, or a restart) with these settings and groups; the cluster is kept. */
    Scheduler start(SchedulerSettings settings, QuotaTree tree) {
        scheduler = new Scheduler(settings, clock);
        scheduler.replaceTree(tree);
        return scheduler;
    }

    String nextVersion() {
        return Integer.toString(version++);
    }

    /** Submits a suspended one-request job, created after every job before it. */
    JobObservation submit(String ns, String name, long millicores, int priority, boolean stoppable) {
        return submit(ns, name, Resources.of("cpu", millicores), priority, stoppable);
    }

    /** Submits a suspended job of this request (millicores, bytes, counts), created after every job before it. */
    JobObservation submit(String ns, String name, Resources request, int priority, boolean stoppable) {
        JobObservation o = new JobObservation(new JobKey("Job", ns, name), "uid-" + name, JobObservation.Phase.QUEUED,
                request, JobPriority.of(priority), T0.plusSeconds(cluster.size()), null, true,
                null, nextVersion(), stoppable, EvictionMarks.NONE);
        cluster.put(o.key(), o);
        scheduler.observe(o);
        return o;
    }

    /** The job as the cluster holds it, in another phase with this record and marks, at a new version. */
    JobObservation copy(JobObservation o, JobObservation.Phase phase, AdmissionRecord record, EvictionMarks marks) {
        return new JobObservation(o.key(), o.uid(), phase, o.request(), o.priority(), o.createdAt(), null,
                o.preemptible(), record, nextVersion(), o.stoppable(), marks);
    }

    /** Runs a cycle and applies its admissions: the patch applies, and the informer shows the job running. */
    CycleResult cycle() {
        CycleResult result = scheduler.schedule();
        for (Admission a : result.admissions()) {
            JobObservation running = copy(cluster.get(a.key()), JobObservation.Phase.ADMITTED, a.record(),
                    cluster.get(a.key()).evictions());
            cluster.put(a.key(), running);
            scheduler.settle(a.key(), a.record(), new AdmissionOutcome.Applied(running.resourceVersion()));
            scheduler.observe(running);
        }
        return result;
    }

    /**
     * The eviction is written now (stamped with the time it is written, as the admission side writes it) and the
     * informer shows the job suspended again, with the marks written.
     */
    void applyAndSee(Eviction decided) {
        Eviction e = decided.writtenAt(clock.instant());
        JobObservation o = cluster.get(e.key());
        JobObservation suspended = copy(o, JobObservation.Phase.QUEUED, o.record(), e.history());
        cluster.put(e.key(), suspended);
        scheduler.settleEviction(e.key(), e.record(),
                new EvictionOutcome.Applied(suspended.resourceVersion(), clock.instant()));
        scheduler.observe(suspended);
    }

    /** The job ends (or is deleted). */
    void finish(String ns, String name) {
        JobObservation o = cluster.remove(new JobKey("Job", ns, name));
        scheduler.observe(JobObservation.finished(o.key(), o.uid()));
    }

    JobState state(String ns, String name) {
        return scheduler.status(new JobKey("Job", ns, name)).map(JobStatus::state).orElse(null);
    }
}
