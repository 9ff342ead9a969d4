package io.kubequeue.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import io.kubequeue.scheduler.model.Admission;
import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.Resources;

/** The admission pipeline alone: its in-flight limit, its turn-taking between quota groups, its backlog. */
class AdmissionPipelineTest {

    /** Admissions served in turn by the quota group they are charged to, as the admission loop serves them. */
    private static final java.util.function.Function<Admission, String> BY_GROUP = a -> a.record().group();


    /** Sends nothing on the wire: each send waits until the test settles it. */
    private static final class ManualSender {
        final List<Admission> sent = new CopyOnWriteArrayList<>();
        final List<CompletableFuture<Void>> pending = new CopyOnWriteArrayList<>();

        CompletableFuture<Void> send(Admission admission) {
            sent.add(admission);
            CompletableFuture<Void> settled = new CompletableFuture<>();
            pending.add(settled);
            return settled;
        }

        void settleOldest() {
            pending.remove(0).complete(null);
        }
    }

    private static Admission admission(String group, int i) {
        return new Admission(new JobKey("Job", group, "job-" + i), null,
                new AdmissionRecord(group, "2026-01-01T00:00:00.000Z"), Resources.of("cpu", 1000L), 0);
    }

    private static List<Admission> burst(String group, int count) {
        return IntStream.range(0, count).mapToObj(i -> admission(group, i)).toList();
    }

    @Test
    void keepsNoMoreThanTheLimitInFlight() {
        ManualSender sender = new ManualSender();
        AdmissionPipeline<Admission> pipeline = new AdmissionPipeline<>(3, BY_GROUP, sender::send);

        pipeline.submit(burst("a", 10));

        assertEquals(3, sender.sent.size());
        assertEquals(3, pipeline.inFlight());
        assertEquals(7, pipeline.backlog());
        sender.settleOldest();
        assertEquals(4, sender.sent.size(), "a settled admission frees its slot for the next");
        assertEquals(3, pipeline.inFlight());
    }

    @Test
    void aBurstInOneGroupDoesNotStarveAnother() {
        ManualSender sender = new ManualSender();
        AdmissionPipeline<Admission> pipeline = new AdmissionPipeline<>(2, BY_GROUP, sender::send);
        pipeline.submit(burst("busy", 1000));
        pipeline.submit(burst("quiet", 3));

        for (int i = 0; i < 6; i++) {
            sender.settleOldest();
        }

        List<String> order = sender.sent.stream().map(a -> a.record().group()).toList();
        assertEquals(List.of("busy", "busy", "busy", "quiet", "busy", "quiet", "busy", "quiet"), order,
                "groups take turns once a backlog forms; the burst decided first does not go first in full");
    }

    @Test
    void withinAGroupTheSchedulersOrderHolds() {
        ManualSender sender = new ManualSender();
        AdmissionPipeline<Admission> pipeline = new AdmissionPipeline<>(1, BY_GROUP, sender::send);
        pipeline.submit(burst("a", 5));
        for (int i = 0; i < 4; i++) {
            sender.settleOldest();
        }

        assertEquals(List.of("job-0", "job-1", "job-2", "job-3", "job-4"),
                sender.sent.stream().map(a -> a.key().name()).toList());
    }

    @Test
    void admissionsSettledWithoutARoundTripDoNotDeepenTheStack() {
        List<Admission> sent = new ArrayList<>();
        AdmissionPipeline<Admission> pipeline = new AdmissionPipeline<>(1, BY_GROUP, admission -> {
            sent.add(admission);
            return CompletableFuture.completedFuture(null);
        });

        pipeline.submit(burst("a", 100_000)); // nested sends would overflow the stack long before this

        assertEquals(100_000, sent.size());
        assertEquals(0, pipeline.inFlight());
        assertEquals(0, pipeline.backlog());
    }

    @Test
    void theBacklogIsWithdrawnWhileThoseInFlightGoOn() throws InterruptedException {
        ManualSender sender = new ManualSender();
        AdmissionPipeline<Admission> pipeline = new AdmissionPipeline<>(2, BY_GROUP, sender::send);
        pipeline.submit(burst("a", 5));

        List<Admission> withdrawn = pipeline.withdrawBacklog();

        assertEquals(List.of("job-2", "job-3", "job-4"), withdrawn.stream().map(a -> a.key().name()).toList());
        assertFalse(pipeline.awaitIdle(Duration.ofMillis(10)), "two still on the wire");
        sender.settleOldest();
        sender.settleOldest();
        assertTrue(pipeline.awaitIdle(Duration.ofMillis(10)));
        assertEquals(2, sender.sent.size(), "nothing withdrawn is sent");
    }

    @Test
    void aSendThatFailsStillFreesItsSlot() {
        List<Admission> sent = new ArrayList<>();
        AdmissionPipeline<Admission> pipeline = new AdmissionPipeline<>(1, BY_GROUP, admission -> {
            sent.add(admission);
            return CompletableFuture.failedFuture(new IllegalStateException("boom"));
        });

        pipeline.submit(burst("a", 3));

        assertEquals(3, sent.size());
        assertEquals(0, pipeline.inFlight());
    }

    @Test
    void aLimitBelowOneIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new AdmissionPipeline<>(0, BY_GROUP, a -> null));
    }
}
