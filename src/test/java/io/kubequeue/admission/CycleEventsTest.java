package io.kubequeue.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.kubequeue.job.JobDirectory;
import io.kubequeue.job.batch.BatchJobKind;
import io.kubequeue.scheduler.model.CycleResult;
import io.kubequeue.scheduler.model.Explanation;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.testing.RecordingEvents;

/**
 * The events a cycle's decisions give the jobs, here those of a reclaim that starts. An Event is read by whoever may
 * read events in the job's namespace, so it names only jobs of that namespace; another team's job is "a job in quota
 * group G" (issue 25, sequence 6).
 */
class CycleEventsTest {

    private static final JobKey PREEMPTOR = new JobKey("Job", "team-a", "train-1");

    private final RecordingEvents events = new RecordingEvents();
    private final JobDirectory directory = new JobDirectory();

    private static CycleResult reclaiming(JobKey... victims) {
        List<String> groups = java.util.Arrays.stream(victims).map(v -> "root." + v.namespace().substring(5)).toList();
        return new CycleResult(List.of(), List.of(), 0, List.of(), 0, 0, List.of(),
                List.of(new CycleResult.Reclaim(PREEMPTOR, "root.a", List.of(victims), groups)));
    }

    @Test
    void theFirstCycleOfAReclaimTellsThePreemptorWhichJobsItWaitsFor() {
        directory.put(PREEMPTOR, JobDirectory.Entry.of(new BatchJobKind(), new JobBuilder().withNewMetadata()
                .withName(PREEMPTOR.name()).withNamespace(PREEMPTOR.namespace()).endMetadata().build(), List.of()));
        CycleEvents cycleEvents = new CycleEvents(directory, events);

        cycleEvents.write(reclaiming(new JobKey("Job", "team-b", "etl-7"), new JobKey("TFJob", "team-c", "t")));
        cycleEvents.write(reclaiming(new JobKey("Job", "team-b", "etl-9"), new JobKey("Job", "team-a", "mine")));

        List<RecordingEvents.Event> reclaiming = events.withReason("Reclaiming");
        assertEquals(List.of(
                new RecordingEvents.Event("train-1", "Normal", "Reclaiming", "waits for 2 jobs of borrowing groups to"
                        + " stop: a job in quota group root.b, a job in quota group root.c; quota group root.a reclaims"
                        + " its min"),
                new RecordingEvents.Event("train-1", "Normal", "Reclaiming", "waits for 2 jobs of borrowing groups to"
                        + " stop: a job in quota group root.b, Job team-a/mine; quota group root.a reclaims its min")),
                reclaiming);
    }

    @Test
    void aPreemptorNoLongerManagedGetsNoEvent() {
        new CycleEvents(directory, events).write(reclaiming(new JobKey("Job", "team-b", "etl-7")));

        assertEquals(List.of(), events.events());
    }

    /**
     * Issue 30: a {@code Pending} event ends with the least that would admit the job now, rendered as its reason is:
     * a job of another namespace is "a job in quota group G", one of the job's own namespace is named.
     */
    @Test
    void aPendingEventEndsWithTheUnblockHintRenderedForItsNamespace() {
        directory.put(PREEMPTOR, JobDirectory.Entry.of(new BatchJobKind(), new JobBuilder().withNewMetadata()
                .withName(PREEMPTOR.name()).withNamespace(PREEMPTOR.namespace()).endMetadata().build(), List.of()));
        JobKey other = new JobKey("Job", "team-b", "etl-7");
        JobKey own = new JobKey("Job", "team-a", "mine");
        CycleEvents cycleEvents = new CycleEvents(directory, events, key -> List.of(
                Explanation.of("raise max cpu of quota group root.a by 2"),
                Explanation.job(other, "root.b").then(" ending (expected 2026-03-01T10:15:00Z)"),
                Explanation.job(own, "root.a").then(" ending")));

        cycleEvents.write(pending(Explanation.of("cpu: request 3, in use 3 of max 4 in quota group root.a")));

        assertEquals(List.of(new RecordingEvents.Event("train-1", "Normal", "Pending", "cpu: request 3, in use 3 of max"
                + " 4 in quota group root.a; waits in quota group root.a; to admit it now: raise max cpu of quota"
                + " group root.a by 2; a job in quota group root.b ending (expected 2026-03-01T10:15:00Z); Job"
                + " team-a/mine ending")), events.withReason("Pending"));
    }

    /** No hint (it fits, estimates off) or one that cannot be computed: the event as before, never lost. */
    @Test
    void withoutAHintThePendingEventIsAsBefore() {
        directory.put(PREEMPTOR, JobDirectory.Entry.of(new BatchJobKind(), new JobBuilder().withNewMetadata()
                .withName(PREEMPTOR.name()).withNamespace(PREEMPTOR.namespace()).endMetadata().build(), List.of()));
        new CycleEvents(directory, events, key -> List.of()).write(pending(null));
        new CycleEvents(directory, events, key -> {
            throw new IllegalStateException("no replay");
        }).write(pending(null));

        assertEquals(2, events.withReason("Pending").size());
        events.withReason("Pending").forEach(e -> assertEquals("does not fit now; waits in quota group root.a",
                e.message()));
    }

    private static CycleResult pending(Explanation reason) {
        return new CycleResult(List.of(), List.of(), 1, List.of(new CycleResult.Unschedulable(PREEMPTOR, "root.a",
                reason)), 1, 0, List.of(), List.of());
    }
}
