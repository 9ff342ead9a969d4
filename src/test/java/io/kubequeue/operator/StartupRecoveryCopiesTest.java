package io.kubequeue.operator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.kubequeue.job.batch.BatchJobKind;

/**
 * Start-up recovery feeds each listed job as the informer caches it: what the scheduler and the job directory keep of
 * that read is then the strings every other read shares (issue 27), and it reads the same.
 */
class StartupRecoveryCopiesTest {

    private static Job listed(String uid) {
        return new JobBuilder().withApiVersion("batch/v1").withKind("Job").withNewMetadata()
                .withName(new String("recovered-0001".toCharArray())).withNamespace("team-a").withUid(uid)
                .withResourceVersion("12").addToLabels("app", "trainer").endMetadata()
                .withNewSpec().withSuspend(true).endSpec().build();
    }

    @Test
    void aListedJobIsFedAsItsCachedCopy() {
        String canonical = new String("9a0e3f1c-0000-4000-8000-00000000abcd".toCharArray()).intern();
        Job job = listed(new String(canonical.toCharArray()));
        Job fed = Recovery.asCached(new BatchJobKind(), job);
        assertSame(canonical, fed.getMetadata().getUid(), "the interned uid, not this list's own");
        assertEquals("12", fed.getMetadata().getResourceVersion());
        assertNull(fed.getMetadata().getLabels(), "a label kube-queue does not read is not kept");
        assertEquals(new BatchJobKind().suspendMarks(job), new BatchJobKind().suspendMarks(fed));
    }

    @Test
    void aJobThePruningFailsOnIsFedWhole() {
        Job job = listed("u1");
        BatchJobKind failing = new BatchJobKind() {
            @Override
            public Job pruned(Job j) {
                throw new IllegalStateException("cannot");
            }
        };
        assertSame(job, Recovery.asCached(failing, job));
    }
}
