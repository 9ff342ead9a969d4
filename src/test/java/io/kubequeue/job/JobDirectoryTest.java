package io.kubequeue.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.kubequeue.job.batch.BatchJobKind;

/** What a directory entry keeps of a job's reference (issue 27: memory per pending job). */
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
}
