package io.kubequeue.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;

import io.kubequeue.scheduler.model.Admission;
import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.JobPriority;
import io.kubequeue.scheduler.model.JobStatus;
import io.kubequeue.scheduler.model.QuotaNode;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.scheduler.model.SchedulerSettings;

/**
 * What the in-flight admission tests share: a scheduler with the default policy on root (cpu 8) → team-a (cpu 4,
 * namespace {@code a}), a clock the test moves, and batch jobs of namespace {@code a} in every phase.
 */
abstract class InFlightScenario {

    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    static final QuotaTree TREE = new QuotaTree(List.of(
            new QuotaNode("root", null, List.of(), null, Resources.of("cpu", 8000L)),
            new QuotaNode("team-a", "root", List.of("a"), null, Resources.of("cpu", 4000L))));

    MutableClock clock;
    Scheduler scheduler;

    @BeforeEach
    void startScheduler() {
        clock = new MutableClock(T0);
        scheduler = new Scheduler(SchedulerSettings.defaults(), clock);
        scheduler.replaceTree(TREE);
    }

    static JobKey key(String name) {
        return new JobKey("Job", "a", name);
    }

    /** A job of namespace {@code a} created at T0, preemptible, with no priority. */
    static JobObservation job(String name, String uid, JobObservation.Phase phase, long millicores,
                              AdmissionRecord record, String resourceVersion) {
        return new JobObservation(key(name), uid, phase, Resources.of("cpu", millicores), JobPriority.NONE, T0, null,
                true, record, resourceVersion);
    }

    /** The same job as seen with a request that cannot be read (the feed passes {@link Resources#NONE}). */
    static JobObservation unreadable(String name, String uid, JobObservation.Phase phase, AdmissionRecord record,
                                     String resourceVersion) {
        return new JobObservation(key(name), uid, phase, Resources.NONE, JobPriority.NONE, T0, null, true, record,
                resourceVersion);
    }

    static JobObservation queued(String name, String uid, long millicores, String resourceVersion) {
        return job(name, uid, JobObservation.Phase.QUEUED, millicores, null, resourceVersion);
    }

    JobStatus status(String name) {
        return scheduler.status(key(name)).orElseThrow();
    }

    /** Runs a cycle that must admit exactly that job. */
    Admission admitOnly(String name) {
        List<Admission> admissions = scheduler.schedule().admissions();
        assertEquals(1, admissions.size(), "one admission: " + admissions);
        assertEquals(name, admissions.get(0).key().name());
        return admissions.get(0);
    }

    /** The group's admitted cpu, in millicores. */
    long cpu(String group) {
        return scheduler.usage(group).get("cpu");
    }
}
