package io.kubequeue.admission;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.kubequeue.scheduler.model.Admission;
import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.Resources;

/**
 * The pod-ran marks' priority (docs/policies.md, "A pod ran: the mark"): never while a decided admission waits for
 * the pipeline, one at a time, only while leading, and not for a job admitted again since.
 */
class PodRanRecordsTest {

    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private final List<Admission> written = new CopyOnWriteArrayList<>();
    private final List<CompletableFuture<Void>> answers = new CopyOnWriteArrayList<>();
    private final AtomicInteger admissionsWaiting = new AtomicInteger();
    private final AtomicBoolean leading = new AtomicBoolean(true);
    private final AtomicBoolean current = new AtomicBoolean(true);
    private final PodRanRecords marks = new PodRanRecords(a -> {
        written.add(a);
        CompletableFuture<Void> answer = new CompletableFuture<>();
        answers.add(answer);
        return answer;
    }, a -> current.get(), admissionsWaiting::get, leading::get, timer);

    @AfterEach
    void stop() {
        timer.shutdownNow();
    }

    private static Admission admission(String name) {
        return new Admission(new JobKey("Job", "a", name), "uid-" + name,
                new AdmissionRecord("root.a", "2026-12-01T10:00:00.000Z"), Resources.NONE, 0);
    }

    @Test
    void aMarkWaitsWhileAdmissionsWaitForThePipeline() {
        admissionsWaiting.set(3);
        marks.record(admission("a"));
        await().during(Duration.ofMillis(600)).atMost(Duration.ofSeconds(2)).until(written::isEmpty);
        admissionsWaiting.set(0);
        await().atMost(Duration.ofSeconds(5)).until(() -> written.size() == 1);
        assertEquals(0, marks.waiting());
    }

    @Test
    void oneAtATimeAndOnlyWhileLeading() {
        leading.set(false);
        marks.record(admission("a"));
        marks.record(admission("b"));
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(written::isEmpty);
        leading.set(true);
        marks.sendNext();
        await().atMost(Duration.ofSeconds(5)).until(() -> written.size() == 1);
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> written.size() == 1);
        answers.get(0).complete(null);
        await().atMost(Duration.ofSeconds(5)).until(() -> written.size() == 2);
        assertEquals(List.of("a", "b"), written.stream().map(a -> a.key().name()).toList());
    }

    @Test
    void aMarkForAnAdmissionThatMovedOnIsDropped() {
        current.set(false);
        marks.record(admission("a"));
        await().atMost(Duration.ofSeconds(5)).until(() -> marks.waiting() == 0);
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(written::isEmpty);
    }
}
