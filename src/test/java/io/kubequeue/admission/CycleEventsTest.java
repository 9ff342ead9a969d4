package io.kubequeue.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.kubequeue.job.JobDirectory;
import io.kubequeue.job.batch.BatchJobKind;
import io.kubequeue.scheduler.model.CycleResult;
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
}
