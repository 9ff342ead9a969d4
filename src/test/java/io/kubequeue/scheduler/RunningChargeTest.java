package io.kubequeue.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.kubequeue.scheduler.model.Admission;
import io.kubequeue.scheduler.model.AdmissionOutcome;
import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.JobPriority;
import io.kubequeue.scheduler.model.QuotaNode;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.scheduler.model.SchedulerSettings;

/**
 * A running job's charge never drops below what its pods may still hold (issue 26, sequence 3; docs/behaviour.md, "A
 * running job's charge"): a lower request seen on a running job is charged at the higher of the two until the job ends
 * or is seen suspended, a higher one at once; after a restart the request its admission record names is the floor.
 * The tree: root (8 cpu) with team (namespace t, max 4 cpu).
 */
class RunningChargeTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    private final MutableClock clock = new MutableClock(T0);
    private Scheduler scheduler;
    private int version = 1;

    @BeforeEach
    void setUp() {
        scheduler = start();
    }

    private Scheduler start() {
        Scheduler s = new Scheduler(SchedulerSettings.defaults(), clock);
        s.replaceTree(new QuotaTree(List.of(
                new QuotaNode("root", null, List.of(), null, Resources.of("cpu", 8000L)),
                new QuotaNode("team", "root", List.of("t"), null, Resources.of("cpu", 4000L)))));
        return s;
    }

    private static JobObservation job(String name, JobObservation.Phase phase, long millicores, AdmissionRecord record,
                                      String version) {
        return new JobObservation(new JobKey("TFJob", "t", name), "uid-" + name, phase, Resources.of("cpu", millicores),
                JobPriority.NONE, T0, null, true, record, version);
    }

    /** Submits, admits and shows running a job of {@code millicores}; returns its running copy. */
    private JobObservation running(String name, long millicores) {
        scheduler.observe(job(name, JobObservation.Phase.QUEUED, millicores, null, next()));
        Admission a = scheduler.schedule().admissions().stream().filter(x -> x.key().name().equals(name)).findFirst()
                .orElseThrow();
        JobObservation seen = job(name, JobObservation.Phase.ADMITTED, millicores, a.record(), next())
                .withAdmittedRequest(a.request());
        scheduler.settle(a.key(), a.record(), new AdmissionOutcome.Applied(seen.resourceVersion()));
        scheduler.observe(seen);
        return seen;
    }

    private String next() {
        return Integer.toString(version++);
    }

    /** The same running job with another request (its template or replicas edited), at a new version. */
    private JobObservation edited(JobObservation o, long millicores) {
        return new JobObservation(o.key(), o.uid(), o.phase(), Resources.of("cpu", millicores), o.priority(),
                o.createdAt(), null, o.preemptible(), o.record(), next(), o.stoppable(), o.evictions(),
                o.pods(), o.admittedRequest());
    }

    private List<String> admitted() {
        return scheduler.schedule().admissions().stream().map(a -> a.key().name()).toList();
    }

    @Test
    void aRunningJobWhoseTemplateIsEditedDownKeepsItsChargeAndNoJobIsAdmittedIntoItsPodsRoom() {
        JobObservation t1 = running("t1", 4000);
        scheduler.observe(edited(t1, 100)); // the operator does not recreate running pods: they keep 4 cpu

        assertEquals(4000, scheduler.usage("team").get("cpu"), "charged what its pods may still hold");
        scheduler.observe(job("j2", JobObservation.Phase.QUEUED, 3000, null, next()));
        assertEquals(List.of(), admitted(), "3 cpu do not fit beside 4 in a 4-cpu group");
    }

    @Test
    void afterARestartTheRequestTheRecordNamesIsTheFloor() {
        JobObservation t1 = running("t1", 4000);
        JobObservation lowered = edited(t1, 100);
        scheduler.observe(lowered);

        scheduler = start(); // the new leader lists the cluster: t1 asks 100m now, its record says 4 cpu
        scheduler.observe(lowered);
        scheduler.observe(job("j2", JobObservation.Phase.QUEUED, 3000, null, next()));

        assertEquals(4000, scheduler.usage("team").get("cpu"));
        assertEquals(List.of(), admitted());
    }

    @Test
    void aHigherRequestIsChargedAtOnceAndKeptWhenLoweredAgain() {
        JobObservation t1 = running("t1", 1000);
        JobObservation raised = edited(t1, 3000);
        scheduler.observe(raised);
        assertEquals(3000, scheduler.usage("team").get("cpu"), "more replicas: charged at once");
        scheduler.observe(edited(raised, 500));
        assertEquals(3000, scheduler.usage("team").get("cpu"), "the raised pods may still run");
    }

    @Test
    void theHigherChargeEndsWhenTheJobIsSeenSuspendedOrEnds() {
        JobObservation t1 = running("t1", 4000);
        JobObservation lowered = edited(t1, 100);
        scheduler.observe(lowered);
        scheduler.observe(new JobObservation(lowered.key(), lowered.uid(), JobObservation.Phase.QUEUED,
                lowered.request(), lowered.priority(), lowered.createdAt(), null, true, lowered.record(), next()));
        assertEquals(0, scheduler.usage("team").get("cpu"), "suspended: its pods are gone, nothing is charged");
        assertEquals(List.of("t1"), admitted());
        assertEquals(100, scheduler.usage("team").get("cpu"), "admitted again at what it asks now");

        JobObservation t2 = running("t2", 3000);
        scheduler.observe(edited(t2, 200));
        scheduler.observe(JobObservation.finished(t2.key(), t2.uid()));
        assertEquals(100, scheduler.usage("team").get("cpu"), "an ended job is charged nothing");
    }
}
