package io.kubequeue.job;

import io.kubequeue.scheduler.AdmissionOutcome;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Clock;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.kubequeue.config.KubeQueueConfig;
import io.kubequeue.events.EventRecorder;
import io.kubequeue.job.batch.BatchJobKind;
import io.kubequeue.scheduler.Admission;
import io.kubequeue.scheduler.QuotaNode;
import io.kubequeue.scheduler.QuotaTree;
import io.kubequeue.scheduler.Resources;
import io.kubequeue.scheduler.Scheduler;
import io.kubequeue.testing.WithStrictApiServer;
import io.quarkus.test.junit.QuarkusTest;

/**
 * The feed in front of its own scheduler (the application's beans give it events and configuration): a new copy of
 * a job whose admission answer was lost asks for a read of the job at once (issue 12), and one whose admission is
 * merely on its way does not.
 */
@QuarkusTest
@WithStrictApiServer
class JobFeedTest {

    @Inject
    EventRecorder events;

    @Inject
    KubeQueueConfig config;

    private static Job job(String resourceVersion) {
        return new JobBuilder().withNewMetadata().withName("j").withNamespace("feed").withUid("u")
                .withResourceVersion(resourceVersion).withCreationTimestamp("2026-01-01T00:00:00Z").endMetadata()
                .withNewSpec().withSuspend(true).withNewTemplate().withNewSpec().addNewContainer().withName("c")
                .withNewResources().addToRequests("cpu", new Quantity("1")).endResources().endContainer().endSpec()
                .endTemplate().endSpec().build();
    }

    @Test
    void aNewCopyOfAJobWhoseAdmissionAnswerWasLostAsksForARead() {
        Scheduler scheduler = new Scheduler(Scheduler.Settings.defaults(), Clock.systemUTC());
        scheduler.replaceTree(new QuotaTree(List.of(
                new QuotaNode("g", null, List.of("feed"), null, Resources.of("cpu", 4000L)))));
        JobFeed feed = new JobFeed(scheduler, new JobDirectory(), events, config);
        List<Admission> asked = new CopyOnWriteArrayList<>();
        feed.onUnconfirmedCopy(asked::add);
        BatchJobKind kind = new BatchJobKind();

        feed.observe(kind, job("1"));
        Admission admission = scheduler.schedule().admissions().get(0);
        feed.observe(kind, job("2"));
        assertEquals(List.of(), asked, "on its way, not lost: nothing to read");

        scheduler.settle(admission.key(), admission.record(), AdmissionOutcome.UNKNOWN);
        feed.observe(kind, job("3"));
        assertEquals(List.of(admission.record()), asked.stream().map(Admission::record).toList());
        assertEquals("u", asked.get(0).uid());
    }
}
