package io.kubequeue.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.kubequeue.job.JobDirectory;
import io.kubequeue.job.batch.BatchJobKind;
import io.kubequeue.scheduler.CycleResult;
import io.kubequeue.scheduler.JobKey;
import io.kubequeue.testing.RecordingEvents;

/** The events a cycle's decisions give the jobs, here those of a reclaim that starts. */
class CycleEventsTest {

    private static final JobKey PREEMPTOR = new JobKey("Job", "team-a", "train-1");

    private final RecordingEvents events = new RecordingEvents();
    private final JobDirectory directory = new JobDirectory();

    private static CycleResult reclaiming(JobKey... victims) {
        return new CycleResult(List.of(), List.of(), 0, List.of(), 0, 0, List.of(),
                List.of(new CycleResult.Reclaim(PREEMPTOR, "root.a", List.of(victims))));
    }

    @Test
    void theFirstCycleOfAReclaimTellsThePreemptorWhichJobsItWaitsFor() {
        directory.put(PREEMPTOR, JobDirectory.Entry.of(new BatchJobKind(), new JobBuilder().withNewMetadata()
                .withName(PREEMPTOR.name()).withNamespace(PREEMPTOR.namespace()).endMetadata().build(), List.of()));
        CycleEvents cycleEvents = new CycleEvents(directory, events);

        cycleEvents.write(reclaiming(new JobKey("Job", "team-b", "etl-7"), new JobKey("TFJob", "team-c", "t")));
        cycleEvents.write(reclaiming(new JobKey("Job", "team-b", "etl-9")));

        List<RecordingEvents.Event> reclaiming = events.withReason("Reclaiming");
        assertEquals(List.of(
                new RecordingEvents.Event("train-1", "Normal", "Reclaiming", "waits for 2 jobs of borrowing groups to"
                        + " stop: Job team-b/etl-7, TFJob team-c/t; quota group root.a reclaims its min"),
                new RecordingEvents.Event("train-1", "Normal", "Reclaiming", "waits for 1 job of borrowing groups to"
                        + " stop: Job team-b/etl-9; quota group root.a reclaims its min")), reclaiming);
    }

    @Test
    void aPreemptorNoLongerManagedGetsNoEvent() {
        new CycleEvents(directory, events).write(reclaiming(new JobKey("Job", "team-b", "etl-7")));

        assertEquals(List.of(), events.events());
    }
}
