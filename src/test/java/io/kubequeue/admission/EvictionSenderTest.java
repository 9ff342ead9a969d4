package io.kubequeue.admission;

import static io.kubequeue.admission.FakeJobRequests.fails;
import static io.kubequeue.admission.FakeJobRequests.ok;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.kubequeue.job.Annotations;
import io.kubequeue.job.JobDirectory;
import io.kubequeue.job.batch.BatchJobKind;
import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.CycleResult;
import io.kubequeue.scheduler.model.Eviction;
import io.kubequeue.scheduler.model.EvictionMarks;
import io.kubequeue.scheduler.model.EvictionOutcome;
import io.kubequeue.scheduler.EvictionSettling;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.MutableClock;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.testing.TrustedRecords;
import io.kubequeue.testing.RecordingEvents;

/**
 * The admission loop's eviction side on its own threads (no Quarkus, no API server): a cycle's evictions are sent
 * through their own pipeline, each settled with the scheduler once (recorded through {@link Evicter}'s seam), the
 * listener told, a cycle asked for after each; an unknown one is read again by itself; those not yet sent when the
 * loop closes are settled refused. Waits are for the outcome, never for a time.
 */
class EvictionSenderTest {

    private static final Duration PATIENCE = Duration.ofSeconds(20);
    private static final JobKey PREEMPTOR = new JobKey("TFJob", "team-a", "train-1");
    private static final AdmissionRecord RECORD = new AdmissionRecord("root.b", "2026-01-01T00:00:00.000Z");
    private static final Instant AT = Instant.parse("2026-01-01T00:10:00Z");

    private record Settled(JobKey key, EvictionOutcome outcome) {
    }

    private final RecordingEvents events = new RecordingEvents();
    private final JobDirectory directory = new JobDirectory();
    private final FakeJobRequests requests = new FakeJobRequests();
    private final List<Settled> settled = new CopyOnWriteArrayList<>();
    private final List<Eviction> toldEvicted = new CopyOnWriteArrayList<>();
    private final List<CycleResult.Reclaim> toldReclaims = new CopyOnWriteArrayList<>();
    private final AtomicInteger cyclesAsked = new AtomicInteger();
    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
    private final ExecutorService reports = Executors.newSingleThreadExecutor();
    private volatile boolean open = true;
    /** When the sender writes: the decision's time unless a test moves it (a backlog, a slow server). */
    private final MutableClock clock = new MutableClock(AT);
    private EvictionSender sender;

    @BeforeEach
    void setUp() {
        Evicter evicter = new Evicter(requests, new EvictionSettling() {
            @Override
            public void settleEviction(JobKey key, AdmissionRecord record, EvictionOutcome outcome) {
                settled.add(new Settled(key, outcome));
            }

            @Override
            public boolean evictionUnsettled(JobKey key, AdmissionRecord record) {
                return settled.stream().noneMatch(s -> s.key().equals(key)
                        && !(s.outcome() instanceof EvictionOutcome.Unknown));
            }

            @Override
            public void podRan(JobKey key) {
            }
        }, directory, events, TrustedRecords.signatures());
        sender = new EvictionSender(evicter, 1, timers, reports, () -> open, cyclesAsked::incrementAndGet, clock,
                call -> call.accept(new AdmissionLoop.Listener() {
                    @Override
                    public void cycle(CycleResult result, long durationNanos) {
                    }

                    @Override
                    public void evicted(Eviction eviction) {
                        toldEvicted.add(eviction);
                    }

                    @Override
                    public void reclaimStarted(CycleResult.Reclaim reclaim) {
                        toldReclaims.add(reclaim);
                    }
                }));
    }

    @AfterEach
    void stop() {
        timers.shutdownNow();
        reports.shutdownNow();
        assertEquals(List.of(), requests.unscripted());
    }

    private static JobKey key(String name) {
        return new JobKey("Job", "team-b", name);
    }

    /** A running, admitted Job of that name, known to the directory. */
    private void admitted(String name) {
        Job job = new JobBuilder().withNewMetadata().withName(name).withNamespace("team-b").withUid("uid-" + name)
                .withResourceVersion("1").withAnnotations(new HashMap<>(Map.of(Annotations.QUOTA_GROUP, RECORD.group(),
                        Annotations.ADMITTED_AT, RECORD.admittedAt()))).endMetadata()
                .withNewSpec().withSuspend(false).endSpec().build();
        directory.put(key(name), JobDirectory.Entry.of(new BatchJobKind(), job, List.of()));
    }

    private static Eviction victim(String name) {
        return new Eviction(key(name), "uid-" + name, RECORD, Eviction.Reason.RECLAIM, PREEMPTOR, "root.a",
                Resources.of("cpu", 1000L), AT, new EvictionMarks(Eviction.Reason.RECLAIM, PREEMPTOR, List.of(AT),
                List.of()));
    }

    /** What a cycle that starts a reclaim of these victims hands over. */
    private static CycleResult reclaimOf(String... victims) {
        List<Eviction> evictions = Stream.of(victims).map(EvictionSenderTest::victim).toList();
        return new CycleResult(List.of(), List.of(), 1, List.of(), 0, 0, evictions,
                List.of(new CycleResult.Reclaim(PREEMPTOR, "root.a", evictions.stream().map(Eviction::key).toList(),
                        evictions.stream().map(e -> e.record().group()).toList())));
    }

    /** The job as the patch leaves it. */
    private static CompletableFuture<HasMetadata> suspendedAs(FakeJobRequests.Patch patch, String resourceVersion) {
        return ok(new JobBuilder().withNewMetadata().withName(patch.key().name()).withNamespace("team-b")
                .withResourceVersion(resourceVersion).endMetadata().build());
    }

    /** The job as read back once a reclaim's write applied: suspended, under {@link #RECORD}, marked evicted. */
    private static Job suspendedByReclaim(String name, String resourceVersion) {
        return new JobBuilder().withNewMetadata().withName(name).withNamespace("team-b").withUid("uid-" + name)
                .withResourceVersion(resourceVersion).withAnnotations(Map.of(Annotations.QUOTA_GROUP, RECORD.group(),
                        Annotations.ADMITTED_AT, RECORD.admittedAt(), Annotations.EVICTED, "reclaim")).endMetadata()
                .withNewSpec().withSuspend(true).endSpec().build();
    }

    @Test
    void aReclaimsVictimsAreEachWrittenAndSettledOnce_theListenerToldAndACycleAskedForEach() {
        admitted("a");
        admitted("b");
        requests.answerPatches(patch -> suspendedAs(patch, "7"));

        sender.send(reclaimOf("a", "b"));

        await().atMost(PATIENCE).until(() -> settled.size() == 2 && cyclesAsked.get() == 2);
        assertEquals(List.of(new Settled(key("a"), new EvictionOutcome.Applied("7")),
                new Settled(key("b"), new EvictionOutcome.Applied("7"))), settled);
        assertEquals(List.of(key("a"), key("b")), toldEvicted.stream().map(Eviction::key).toList());
        assertEquals(List.of(PREEMPTOR), toldReclaims.stream().map(CycleResult.Reclaim::preemptor).toList());
        assertEquals(2, requests.patches().size());
        assertEquals(2, events.withReason("Reclaimed").size());
        assertEquals(0, sender.inFlight());
    }

    @Test
    void evictionsNotYetSentWhenTheLoopClosesAreRefusedUnwritten_theOneOnTheWireCompletes() {
        admitted("a");
        admitted("b");
        CompletableFuture<HasMetadata> onTheWire = new CompletableFuture<>();
        requests.answerPatch(onTheWire);

        sender.send(reclaimOf("a", "b")); // one slot: a on the wire, b waits
        await().atMost(PATIENCE).until(() -> requests.patches().size() == 1);
        open = false;
        assertEquals(1, sender.close());

        assertEquals(List.of(new Settled(key("b"), EvictionOutcome.REFUSED)), settled);
        onTheWire.complete(new JobBuilder().withNewMetadata().withName("a").withResourceVersion("8").endMetadata()
                .build());
        await().atMost(PATIENCE).until(() -> settled.size() == 2);
        assertEquals(new Settled(key("a"), new EvictionOutcome.Applied("8")), settled.get(1));
        assertEquals(1, requests.patches().size(), "b is never written");
        assertEquals(List.of(key("a")), toldEvicted.stream().map(Eviction::key).toList());
    }

    @Test
    void anEvictionDecidedBeforeTheLoopClosedButSentAfterIsRefusedUnwritten() {
        admitted("a");
        open = false;

        sender.send(reclaimOf("a"));

        assertEquals(List.of(new Settled(key("a"), EvictionOutcome.REFUSED)), settled);
        assertEquals(List.of(), requests.patches());
    }

    @Test
    void anUnknownEvictionIsReadAgainByItselfUntilKnown() {
        admitted("a");
        requests.answerPatch(fails(500)).answerGet(fails(500)).answerGet(ok(suspendedByReclaim("a", "9")));

        sender.send(reclaimOf("a"));

        await().atMost(PATIENCE).until(() -> settled.size() == 2);
        assertEquals(List.of(new Settled(key("a"), EvictionOutcome.UNKNOWN),
                new Settled(key("a"), new EvictionOutcome.Applied("9"))), settled);
        assertEquals(2, requests.gets().size(), "read back, then read again after a backoff");
        assertEquals(1, requests.patches().size(), "never written twice");
        assertEquals(List.of(key("a")), toldEvicted.stream().map(Eviction::key).toList());
    }

    /**
     * An eviction written an hour after it was decided (a backlog of writes, a slow API server) is a victim from when
     * it is written: the patch puts the write's time in the job's history, and the scheduler is told the same time,
     * so the limit per hour counts from the suspension (ReclaimPropertiesTest, seed 3227737241594834361).
     */
    @Test
    void anEvictionIsStampedWithTheTimeItIsWritten_onTheJobAndInTheOutcome() {
        admitted("a");
        Instant written = AT.plus(Duration.ofMinutes(65));
        clock.advance(Duration.ofMinutes(65));
        requests.answerPatches(patch -> suspendedAs(patch, "7"));

        sender.send(reclaimOf("a"));

        await().atMost(PATIENCE).until(() -> settled.size() == 1);
        assertEquals(List.of(new Settled(key("a"), new EvictionOutcome.Applied("7", written))), settled);
        String body = requests.patches().get(0).body();
        assertTrue(body.contains(written.toString().replace("Z", "")),
                "the job's history holds the write's time: " + body);
        assertFalse(body.contains(AT.toString().replace("Z", "")),
                "and not the decision's: " + body);
    }

    /** Its answer lost, read back applied later: the time is still the write's, as the job carries it. */
    @Test
    void anUnknownEvictionReadBackAppliedKeepsTheTimeItWasWritten() {
        admitted("a");
        Instant written = AT.plus(Duration.ofMinutes(65));
        clock.advance(Duration.ofMinutes(65));
        requests.answerPatch(fails(500)).answerGet(fails(500)).answerGet(ok(suspendedByReclaim("a", "9")));

        sender.send(reclaimOf("a"));
        clock.advance(Duration.ofMinutes(5)); // the re-read comes later: it writes nothing

        await().atMost(PATIENCE).until(() -> settled.size() == 2);
        assertEquals(new Settled(key("a"), new EvictionOutcome.Applied("9", written)), settled.get(1));
    }
}
