package io.kubequeue.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.kubequeue.job.batch.BatchJobKind;
import io.kubequeue.scheduler.model.JobKey;

/** What a directory entry keeps of a job (issue 27: memory per pending job), and how pods are traced to jobs. */
class JobDirectoryTest {

    private static Job job(String name) {
        return new JobBuilder().withApiVersion("batch/v1").withKind("Job").withNewMetadata().withName(name)
                .withNamespace("team-a").withUid("uid-" + name).withResourceVersion("7").endMetadata()
                .withNewSpec().withSuspend(true).endSpec().build();
    }

    @Test
    void entriesShareOneEmptyMapOfAdditionalProperties() {
        ObjectReference first = JobDirectory.Entry.of(new BatchJobKind(), job("a"), List.of()).ref();
        ObjectReference second = JobDirectory.Entry.of(new BatchJobKind(), job("b"), List.of()).ref();
        assertSame(first.getAdditionalProperties(), second.getAdditionalProperties());
        assertEquals(0, first.getAdditionalProperties().size());
        assertEquals(List.of("batch/v1", "Job", "team-a", "b", "uid-b"), List.of(second.getApiVersion(),
                second.getKind(), second.getNamespace(), second.getName(), second.getUid()));
    }

    /** An entry holds the job's own strings, not a reference object of its own, and refers to the job as before. */
    @Test
    void anEntryKeepsTheJobsIdentityAsItsStrings() {
        Job job = job("c");
        JobDirectory.Entry entry = JobDirectory.Entry.of(new BatchJobKind(), job, List.of());
        assertSame(job.getMetadata().getUid(), entry.uid());
        assertSame(job.getMetadata().getName(), entry.name());
        assertSame(job.getMetadata().getNamespace(), entry.namespace());
        ObjectReference ref = entry.ref();
        assertEquals(List.of("batch/v1", "Job", "team-a", "c", "uid-c"), List.of(ref.getApiVersion(), ref.getKind(),
                ref.getNamespace(), ref.getName(), ref.getUid()));
        ObjectReference given = new ObjectReference("batch/v1", null, "Job", "d", "team-a", null, "uid-d");
        JobDirectory.Entry fromRef = new JobDirectory.Entry(null, given, List.of(), false, "1");
        assertEquals(given, fromRef.ref());
        assertEquals("uid-d", fromRef.uid());
    }

    /** Marks and histories repeat from job to job: entries share one instance of each. */
    @Test
    void entriesShareTheirMarksAndAnEmptyHistory() {
        List<SuspendMark> marks = new ArrayList<>(List.of(SuspendMark.ANNOTATION, SuspendMark.SPEC_SUSPEND));
        JobDirectory.Entry first = JobDirectory.Entry.of(new BatchJobKind(), job("a"), marks,
                new RecordFields.History("", ""));
        JobDirectory.Entry second = JobDirectory.Entry.of(new BatchJobKind(), job("b"),
                new ArrayList<>(List.of(SuspendMark.ANNOTATION, SuspendMark.SPEC_SUSPEND)),
                RecordFields.NONE.history());
        assertSame(first.marks(), second.marks());
        assertEquals(List.of(SuspendMark.ANNOTATION, SuspendMark.SPEC_SUSPEND), first.marks(), "in their order");
        assertEquals(List.of(SuspendMark.SPEC_SUSPEND, SuspendMark.ANNOTATION),
                SuspendMark.shared(List.of(SuspendMark.SPEC_SUSPEND, SuspendMark.ANNOTATION)));
        assertSame(first.withMarks(new ArrayList<>()).marks(), second.withMarks(List.of()).marks());
        assertSame(RecordFields.History.NONE, first.history());
        assertSame(RecordFields.History.NONE, second.history());
        RecordFields.History reclaimed = new RecordFields.History("2026-01-01T00:10:00Z", "");
        assertSame(reclaimed, JobDirectory.Entry.of(new BatchJobKind(), job("c"), marks, reclaimed).history());
    }

    @Test
    void theDirectoryHandsBackTheKeyItHolds() {
        JobDirectory directory = new JobDirectory();
        JobKey first = new JobKey("Job", "team-a", "a");
        JobKey again = new JobKey("Job", "team-a", "a");
        assertSame(again, directory.known(again), "an unknown job: the key given");
        directory.put(first, JobDirectory.Entry.of(first, new BatchJobKind(), job("a"), List.of(),
                RecordFields.History.NONE));
        assertSame(first, directory.known(again));
        assertEquals(first, JobDirectory.Entry.of(new BatchJobKind(), job("a"), List.of()).key());
    }
}
