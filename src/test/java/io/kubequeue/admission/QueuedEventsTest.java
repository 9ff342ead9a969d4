package io.kubequeue.admission;

import static io.kubequeue.admission.FakeJobRequests.ok;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.kubequeue.config.KubeQueueConfig;
import io.kubequeue.job.Annotations;
import io.kubequeue.job.JobDirectory;
import io.kubequeue.job.JobFeed;
import io.kubequeue.job.batch.BatchJobKind;
import io.kubequeue.scheduler.Scheduler;
import io.kubequeue.scheduler.model.Admission;
import io.kubequeue.scheduler.model.CycleResult;
import io.kubequeue.scheduler.model.QuotaNode;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.scheduler.model.SchedulerSettings;
import io.kubequeue.scheduler.model.SchedulingPolicy;
import io.kubequeue.testing.RecordingEvents;
import io.kubequeue.testing.TestConfig;
import io.kubequeue.testing.TrustedRecords;

/**
 * Issue 27 item 2: the events a job gets from being queued to being admitted, counted. A job admitted by the cycle
 * that first sees it gets {@code Admitted} only (its {@code Queued} would be one more write to the API server, telling
 * what the {@code Admitted} right after it makes moot); a job still pending after that cycle gets its {@code Queued}
 * (and its {@code Pending}). The loop is wired as the operator wires it (StartupRecovery). Waits are for outcomes.
 */
class QueuedEventsTest {

    private static final Duration PATIENCE = Duration.ofSeconds(20);

    private final BatchJobKind kind = new BatchJobKind();
    private final RecordingEvents events = new RecordingEvents();
    private final JobDirectory directory = new JobDirectory();
    private final FakeJobRequests requests = new FakeJobRequests();
    private final List<Admission> admitted = new CopyOnWriteArrayList<>();
    private final AtomicInteger cycles = new AtomicInteger();
    private Scheduler scheduler;
    private JobFeed feed;
    private AdmissionLoop loop;

    private void start() {
        KubeQueueConfig config = TestConfig.kubeQueue(Map.of("kube-queue.admission.batch-window", "10ms"));
        scheduler = new Scheduler(new SchedulerSettings(SchedulingPolicy.DEFAULT, config.backoff().initial(),
                config.backoff().max()), Clock.systemUTC());
        scheduler.replaceTree(new QuotaTree(List.of(
                new QuotaNode("g", null, List.of("ns"), null, Resources.of("cpu", 1000L)))));
        Admitter admitter = new Admitter(requests, scheduler, directory, events, null, TrustedRecords.signatures());
        loop = new AdmissionLoop(scheduler, admitter, new Evicter(requests, scheduler, directory, events,
                TrustedRecords.signatures()), directory, events, config);
        // as the operator wires them (a batch Job never shows Queuing: no condition writer)
        feed = new JobFeed(scheduler, directory, events, config, TrustedRecords.signatures(),
                new FeedToAdmission(loop, null));
        loop.listener(new AdmissionLoop.Listener() {
            @Override
            public void cycle(CycleResult result, long durationNanos) {
                cycles.incrementAndGet();
            }

            @Override
            public void admitted(Admission admission) {
                admitted.add(admission);
            }
        });
        requests.answerPatches(patch -> ok(running(patch)));
        loop.open();
    }

    @AfterEach
    void stopTheLoop() {
        if (loop != null) {
            loop.stop();
        }
    }

    /** A suspended Job of 1 cpu, created at that second (queue order). */
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

    private List<String> reasonsOf(String job) {
        return events.events().stream().filter(e -> e.name().equals(job)).map(RecordingEvents.Event::reason).toList();
    }

    @Test
    void aJobAdmittedByTheCycleThatFirstSeesItGetsAdmittedOnly() {
        start();
        feed.observe(kind, suspended("at-once", 0));
        await().atMost(PATIENCE).until(() -> admitted.size() == 1);
        // one more cycle, so that anything said after the first one has been said
        int before = cycles.get();
        loop.trigger();
        await().atMost(PATIENCE).until(() -> cycles.get() > before);

        assertEquals(List.of("Admitted"), reasonsOf("at-once"), "one event, not Queued + Admitted");
    }

    @Test
    void aJobStillPendingAfterTheCycleThatFirstSeesItGetsItsQueuedEvent() {
        start();
        feed.observe(kind, suspended("first", 0));
        await().atMost(PATIENCE).until(() -> admitted.size() == 1);
        feed.observe(kind, suspended("second", 1)); // the group is full: it waits

        await().atMost(PATIENCE).until(() -> reasonsOf("second").size() == 2);
        assertEquals(List.of("Queued", "Pending"), reasonsOf("second"));
        assertEquals("queued in quota group g", events.withReason("Queued").get(0).message());
        assertEquals(List.of("Admitted"), reasonsOf("first"));
    }
}
