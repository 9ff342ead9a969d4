package io.kubequeue.admission;

import static io.kubequeue.admission.FakeJobRequests.fails;
import static io.kubequeue.admission.FakeJobRequests.ok;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.HasMetadata;
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
import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.CycleResult;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.scheduler.model.JobStatus;
import io.kubequeue.scheduler.model.QuotaNode;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.scheduler.model.SchedulerSettings;
import io.kubequeue.scheduler.model.SchedulingPolicy;
import io.kubequeue.testing.RecordingEvents;
import io.kubequeue.testing.TestConfig;
import io.kubequeue.testing.TrustedRecords;

/**
 * The admission loop on its own threads (no Quarkus, no API server): a real scheduler and feed, a real
 * {@link Admitter} over scripted answers ({@link FakeJobRequests}). Checks what the loop does with each admission
 * over time: sends it once, hands back what it has not sent when it closes, re-reads an unconfirmed one by itself,
 * and sends a refused one again once its backoff expires. Waits are for the outcome, never for a time.
 */
class AdmissionLoopTest {

    private static final Duration PATIENCE = Duration.ofSeconds(20);
    private static final long CPU = 1000L;

    private final BatchJobKind kind = new BatchJobKind();
    private final RecordingEvents events = new RecordingEvents();
    private final JobDirectory directory = new JobDirectory();
    private final FakeJobRequests requests = new FakeJobRequests();
    private final List<Admission> toldAdmitted = new CopyOnWriteArrayList<>();
    private final List<Admitter.Settlement.Kind> toldAnswered = new CopyOnWriteArrayList<>();
    private final AtomicInteger cycles = new AtomicInteger();
    private Scheduler scheduler;
    private JobFeed feed;
    private AdmissionLoop loop;

    /** Wires the loop as the operator does (StartupRecovery), with these settings; the loop stays closed. */
    private void start(Map<String, String> properties) {
        Map<String, String> all = new HashMap<>(Map.of("kube-queue.admission.batch-window", "10ms"));
        all.putAll(properties);
        KubeQueueConfig config = TestConfig.kubeQueue(all);
        scheduler = new Scheduler(new SchedulerSettings(SchedulingPolicy.DEFAULT, config.backoff().initial(),
                config.backoff().max()), Clock.systemUTC());
        scheduler.replaceTree(new QuotaTree(List.of(
                new QuotaNode("g", null, List.of("ns"), null, Resources.of("cpu", 4000L)))));
        // a batch Job is never a Kubeflow job: the Queuing condition writer is never reached
        Admitter admitter = new Admitter(requests, scheduler, directory, events, null, TrustedRecords.signatures());
        loop = new AdmissionLoop(scheduler, admitter, new Evicter(requests, scheduler, directory, events, TrustedRecords.signatures()), directory,
                events, config);
        feed = new JobFeed(scheduler, directory, events, config, TrustedRecords.signatures(),
                new FeedToAdmission(loop, null));
        loop.listener(new AdmissionLoop.Listener() {
            @Override
            public void cycle(CycleResult result, long durationNanos) {
                cycles.incrementAndGet();
            }

            @Override
            public void admitted(Admission admission) {
                toldAdmitted.add(admission);
            }

            @Override
            public void answered(Admitter.Settlement.Kind kind, long answerNanos) {
                toldAnswered.add(kind);
            }
        });
    }

    @AfterEach
    void stopTheLoop() {
        if (loop != null) {
            loop.stop();
        }
        assertEquals(List.of(), requests.unscripted());
    }

    private static JobKey key(String name) {
        return new JobKey("Job", "ns", name);
    }

    /** A suspended Job of 1 cpu, no annotations, created at that second (queue order). */
    private static Job suspended(String name, int createdSecond) {
        return new JobBuilder().withNewMetadata().withName(name).withNamespace("ns").withUid("uid-" + name)
                .withResourceVersion("1").withCreationTimestamp(String.format("2026-01-01T00:00:%02dZ", createdSecond))
                .endMetadata().withNewSpec().withSuspend(true).withNewTemplate().withNewSpec().addNewContainer()
                .withName("c").withNewResources().addToRequests("cpu", new Quantity("1")).endResources()
                .endContainer().endSpec().endTemplate().endSpec().build();
    }

    /** The job as a patch leaves it: running, at a new version, with the record the patch writes, signed. */
    private static Job runningAsPatched(FakeJobRequests.Patch patch) {
        return running(patch.key().name(), patch.record());
    }

    private static Job running(String name, AdmissionRecord record) {
        Job job = new JobBuilder(suspended(name, 0)).editMetadata().withResourceVersion("2").endMetadata()
                .editSpec().withSuspend(false).endSpec().build();
        job.getMetadata().setAnnotations(TrustedRecords.signed(job.getMetadata().getUid(),
                Map.of(Annotations.QUOTA_GROUP, record.group(), Annotations.ADMITTED_AT, record.admittedAt())));
        return job;
    }

    private JobState state(JobKey key) {
        return scheduler.status(key).map(JobStatus::state).orElse(null);
    }

    private long usage() {
        return scheduler.usage("g").get("cpu");
    }

    @Test
    void anOpenLoopSendsAQueuedJobOnceAndReportsItAdmitted() {
        start(Map.of());
        requests.answerPatches(patch -> ok(runningAsPatched(patch)));
        feed.observe(kind, suspended("j", 0));
        assertEquals(List.of(), requests.patches(), "closed until recovery is done: nothing sent");

        loop.open();
        await().atMost(PATIENCE).until(() -> !toldAdmitted.isEmpty());

        assertEquals(JobState.ADMITTED, state(key("j")));
        assertEquals(CPU, usage());
        Admission admitted = toldAdmitted.get(0);
        assertEquals(key("j"), admitted.key());
        assertEquals(admitted.record(), scheduler.status(key("j")).orElseThrow().record());
        assertEquals(List.of(Admitter.Settlement.Kind.APPLIED), toldAnswered);
        assertEquals(1, events.withReason("Admitted").size());

        // another cycle finds nothing to do: the job was sent once
        int before = cycles.get();
        loop.trigger();
        await().atMost(PATIENCE).until(() -> cycles.get() > before);
        assertEquals(1, requests.patches().size());
        assertEquals(admitted.record(), requests.patches().get(0).record());
        assertEquals(1, toldAdmitted.size());
    }

    @Test
    void closingHandsBackWhatWasDecidedButNotSent() {
        start(Map.of("kube-queue.admission.in-flight", "1"));
        CompletableFuture<HasMetadata> onTheWire = new CompletableFuture<>();
        requests.answerPatch(onTheWire);
        feed.observe(kind, suspended("a", 0));
        feed.observe(kind, suspended("b", 1));

        loop.open();
        // both fit and are decided; one slot: one on the wire, the other waits to be sent
        await().atMost(PATIENCE).until(() -> requests.patches().size() == 1 && loop.admissionsWaitingToBeSent() == 1);
        JobKey sent = requests.patches().get(0).key();
        JobKey unsent = sent.equals(key("a")) ? key("b") : key("a");
        assertEquals(2 * CPU, usage(), "both charged as decided");

        loop.close();

        assertEquals(JobState.BACKOFF, state(unsent), "handed back at once, not left charged");
        assertEquals(CPU, usage(), "only the one on the wire stays charged");
        assertEquals(0, loop.admissionsWaitingToBeSent());

        // the patch already on the wire completes and is reported; nothing more is sent
        onTheWire.complete(runningAsPatched(requests.patches().get(0)));
        await().atMost(PATIENCE).until(() -> state(sent) == JobState.ADMITTED && !toldAdmitted.isEmpty()
                && loop.admissionsInFlight() == 0);
        assertEquals(List.of(sent), toldAdmitted.stream().map(Admission::key).toList());
        assertEquals(1, requests.patches().size(), "the handed-back admission is never sent");
        assertEquals(JobState.BACKOFF, state(unsent));
        assertEquals(CPU, usage());
    }

    @Test
    void anUnconfirmedAdmissionIsReadAgainByItselfUntilKnown_chargedMeanwhile() {
        start(Map.of());
        CompletableFuture<HasMetadata> secondRead = new CompletableFuture<>();
        requests.answerPatch(fails(500)).answerGet(fails(500)).answerGet(secondRead);
        feed.observe(kind, suspended("j", 0));

        loop.open();
        // nobody asks: the loop reads the job again on its own
        await().atMost(PATIENCE).until(() -> requests.gets().size() == 2);
        AdmissionRecord decided = requests.patches().get(0).record();
        assertTrue(scheduler.admissionUnsettled(key("j"), decided), "unknown until the read answers");
        assertEquals(JobState.ADMITTED, state(key("j")));
        assertEquals(CPU, usage(), "the charge stays while unknown");
        assertEquals(List.of(Admitter.Settlement.Kind.UNCONFIRMED), toldAnswered);

        secondRead.complete(running("j", decided));
        await().atMost(PATIENCE).until(() -> !scheduler.admissionUnsettled(key("j"), decided));

        assertEquals(JobState.ADMITTED, state(key("j")));
        assertEquals(decided, scheduler.status(key("j")).orElseThrow().record());
        assertEquals(CPU, usage());
        assertEquals(1, requests.patches().size(), "read, never patched again");
    }

    @Test
    void aRefusedAdmissionBacksOffAndIsSentAgainByItself() {
        start(Map.of("kube-queue.backoff.initial", "100ms", "kube-queue.backoff.max", "1s"));
        requests.answerPatch(fails(409)).answerGets(key -> ok(suspended(key.name(), 0)))
                .answerPatches(patch -> ok(runningAsPatched(patch)));
        feed.observe(kind, suspended("j", 0));

        loop.open();
        // nobody triggers again: the loop wakes up when the backoff expires
        await().atMost(PATIENCE).until(() -> !toldAdmitted.isEmpty());

        List<FakeJobRequests.Patch> patches = requests.patches();
        assertEquals(2, patches.size(), "refused once, then sent again: " + patches);
        assertNotEquals(patches.get(0).record(), patches.get(1).record(), "a new decision, with its own record");
        assertEquals(List.of(Admitter.Settlement.Kind.REFUSED, Admitter.Settlement.Kind.APPLIED), toldAnswered);
        assertEquals(List.of(key("j")), requests.gets(), "the refusal was read back once");
        JobStatus status = scheduler.status(key("j")).orElseThrow();
        assertEquals(JobState.ADMITTED, status.state());
        assertEquals(patches.get(1).record(), status.record());
        assertEquals(1, status.attempts(), "one refusal counted");
        assertEquals(CPU, usage(), "charged once");
        assertEquals(List.of(patches.get(1).record()), toldAdmitted.stream().map(Admission::record).toList());
    }
}
