package io.kubequeue.admission;

import static io.kubequeue.admission.FakeJobRequests.ok;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.kubequeue.config.KubeQueueConfig;
import io.kubequeue.job.Annotations;
import io.kubequeue.job.FeedEffects;
import io.kubequeue.job.JobDirectory;
import io.kubequeue.job.JobFeed;
import io.kubequeue.job.batch.BatchJobKind;
import io.kubequeue.scheduler.Scheduler;
import io.kubequeue.scheduler.model.QuotaNode;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.scheduler.model.SchedulerSettings;
import io.kubequeue.scheduler.model.SchedulingPolicy;
import io.kubequeue.testing.RecordingEvents;
import io.kubequeue.testing.TestConfig;
import io.kubequeue.testing.TrustedRecords;

/**
 * The admission loop tells the events what to wait behind: its decided admissions waiting for a place in the
 * pipeline (the events' budget, EventBudgetTest, holds every event while that is above 0).
 */
class EventsBehindAdmissionsTest {

    private static final Duration PATIENCE = Duration.ofSeconds(20);

    private final RecordingEvents events = new RecordingEvents();
    private final FakeJobRequests requests = new FakeJobRequests();
    private AdmissionLoop loop;

    @AfterEach
    void stopTheLoop() {
        if (loop != null) {
            loop.stop();
        }
    }

    private static Job suspended(String name, int createdSecond) {
        return new JobBuilder().withNewMetadata().withName(name).withNamespace("ns").withUid("uid-" + name)
                .withResourceVersion("1").withCreationTimestamp(String.format("2026-01-01T00:00:%02dZ", createdSecond))
                .endMetadata().withNewSpec().withSuspend(true).withNewTemplate().withNewSpec().addNewContainer()
                .withName("c").withNewResources().addToRequests("cpu", new Quantity("1")).endResources()
                .endContainer().endSpec().endTemplate().endSpec().build();
    }

    private static Job running(FakeJobRequests.Patch patch) {
        Job job = new JobBuilder(suspended(patch.key().name(), 0)).editMetadata().withResourceVersion("2")
                .endMetadata().editSpec().withSuspend(false).endSpec().build();
        job.getMetadata().setAnnotations(TrustedRecords.signed(job.getMetadata().getUid(),
                Map.of(Annotations.QUOTA_GROUP, patch.record().group(), Annotations.ADMITTED_AT,
                        patch.record().admittedAt())));
        return job;
    }

    @Test
    void eventsWaitBehindTheAdmissionsWaitingForThePipeline() {
        KubeQueueConfig config = TestConfig.kubeQueue(Map.of("kube-queue.admission.batch-window", "10ms",
                "kube-queue.admission.in-flight", "1"));
        Scheduler scheduler = new Scheduler(new SchedulerSettings(SchedulingPolicy.DEFAULT, config.backoff().initial(),
                config.backoff().max()), Clock.systemUTC());
        scheduler.replaceTree(new QuotaTree(List.of(
                new QuotaNode("g", null, List.of("ns"), null, Resources.of("cpu", 4000L)))));
        JobDirectory directory = new JobDirectory();
        Admitter admitter = new Admitter(requests, scheduler, directory, events, null, TrustedRecords.signatures());
        loop = new AdmissionLoop(scheduler, admitter, new Evicter(requests, scheduler, directory, events,
                TrustedRecords.signatures()), directory, events, config);
        JobFeed feed = new JobFeed(scheduler, directory, events, config, TrustedRecords.signatures(),
                new FeedEffects() {
                    @Override
                    public void changed() {
                        loop.trigger();
                    }
                });
        CompletableFuture<HasMetadata> onTheWire = new CompletableFuture<>();
        requests.answerPatch(onTheWire).answerPatches(patch -> ok(running(patch)));
        feed.observe(new BatchJobKind(), suspended("a", 0));
        feed.observe(new BatchJobKind(), suspended("b", 1));
        feed.observe(new BatchJobKind(), suspended("c", 2));

        loop.open();
        await().atMost(PATIENCE).until(() -> requests.patches().size() == 1
                && loop.admissionsWaitingToBeSent() == 2);
        assertEquals(2, events.admissionsWaiting(), "events wait behind the two admissions not yet sent");

        onTheWire.complete(running(requests.patches().get(0)));
        await().atMost(PATIENCE).until(() -> requests.patches().size() == 3 && loop.admissionsInFlight() == 0);
        assertEquals(0, events.admissionsWaiting(), "every admission sent: events may go");
    }
}
