package io.kubequeue.admission;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.kubequeue.scheduler.model.JobKey;

/**
 * The one sender of writes that change whether a job runs ({@link WriteSender}), with a kind of write whose answers
 * are scripted: each answer is reported once, on the report thread, then settled; an unknown one is read again until
 * it is known; a decision not sent once this replica stops writing, or whose sending throws, is handed back; closing
 * hands back the backlog. Admissions and evictions through it: {@link AdmissionLoopTest}, {@link EvictionSenderTest}.
 * Waits are for the outcome, never for a time.
 */
class WriteSenderTest {

    private static final Duration PATIENCE = Duration.ofSeconds(20);
    private static final String HANDED_BACK = "handed back";
    private static final String UNKNOWN = "unknown";

    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
    private final ExecutorService reports = Executors.newSingleThreadExecutor();
    private final List<String> calls = new CopyOnWriteArrayList<>();
    private final Map<String, Deque<CompletableFuture<String>>> sends = new ConcurrentHashMap<>();
    private final Map<String, Deque<CompletableFuture<String>>> rechecks = new ConcurrentHashMap<>();
    private volatile boolean open = true;
    private volatile Thread reportThread;

    /** Decisions are job names; outcomes are what the script says. */
    private final WriteSender.Writes<String, String> scripted = new WriteSender.Writes<>() {
        @Override
        public String what() {
            return "write";
        }

        @Override
        public JobKey key(String decision) {
            return new JobKey("Job", "team-a", decision);
        }

        @Override
        public CompletableFuture<String> send(String decision) {
            if (decision.startsWith("throws")) {
                throw new IllegalStateException("no patch for " + decision);
            }
            calls.add("send " + decision);
            return next(sends, decision);
        }

        @Override
        public CompletableFuture<String> recheck(String decision, boolean leading) {
            calls.add("recheck " + decision + (leading ? " leading" : " following"));
            return next(rechecks, decision);
        }

        @Override
        public void report(String decision, String outcome) {
            calls.add("report " + decision + " " + outcome);
            if (!outcome.equals(HANDED_BACK)) {
                reportThread = Thread.currentThread();
            }
        }

        @Override
        public String handedBack() {
            return HANDED_BACK;
        }

        @Override
        public boolean unknown(String outcome) {
            return outcome.equals(UNKNOWN);
        }

        @Override
        public void settled(String decision, String outcome, boolean reread) {
            calls.add("settled " + decision + " " + outcome + (reread ? " on a re-read" : ""));
        }

        @Override
        public void settledMeanwhile(String decision) {
            calls.add("settled meanwhile " + decision);
        }
    };

    private final WriteSender<String, String> sender = new WriteSender<>(scripted, 1, decision -> "g", timers,
            reports, () -> open);

    private static CompletableFuture<String> next(Map<String, Deque<CompletableFuture<String>>> script, String key) {
        Deque<CompletableFuture<String>> answers = script.get(key);
        return answers == null || answers.isEmpty() ? new CompletableFuture<>() : answers.poll();
    }

    private void script(Map<String, Deque<CompletableFuture<String>>> script, String key, String... outcomes) {
        Deque<CompletableFuture<String>> answers = script.computeIfAbsent(key, k -> new ArrayDeque<>());
        for (String outcome : outcomes) {
            answers.add(CompletableFuture.completedFuture(outcome));
        }
    }

    @AfterEach
    void stop() {
        timers.shutdownNow();
        reports.shutdownNow();
    }

    private void awaitCalls(List<String> expected) {
        await().atMost(PATIENCE).until(() -> calls.size() >= expected.size());
        assertEquals(expected, calls);
    }

    @Test
    void aKnownAnswerIsReportedOnceOnTheReportThreadThenSettled() throws Exception {
        script(sends, "a", "applied");
        sender.submit(List.of("a"));
        awaitCalls(List.of("send a", "report a applied", "settled a applied"));
        Thread reportsRunOn = reports.submit(Thread::currentThread).get();
        assertEquals(reportsRunOn, reportThread, "reported on the one report thread");
    }

    @Test
    void anUnknownAnswerIsReadAgainUntilItIsKnown() {
        script(sends, "a", UNKNOWN);
        script(rechecks, "a", UNKNOWN, "refused");
        sender.submit(List.of("a"));
        awaitCalls(List.of("send a", "report a unknown", "recheck a leading", "report a unknown",
                "recheck a leading", "report a refused", "settled a refused on a re-read"));
    }

    @Test
    void aReReadThatFindsNothingLeftToSettleEndsTheReReads() {
        script(sends, "a", UNKNOWN);
        rechecks.computeIfAbsent("a", k -> new ArrayDeque<>()).add(CompletableFuture.completedFuture(null));
        sender.submit(List.of("a"));
        awaitCalls(List.of("send a", "report a unknown", "recheck a leading", "settled meanwhile a"));
    }

    @Test
    void aFollowerReReadsWithoutLeading() {
        script(sends, "a", UNKNOWN);
        script(rechecks, "a", "applied");
        sender.submit(List.of("a"));
        await().atMost(PATIENCE).until(() -> calls.contains("report a unknown"));
        open = false;
        awaitCalls(List.of("send a", "report a unknown", "recheck a following", "report a applied",
                "settled a applied on a re-read"));
    }

    @Test
    void aDecisionIsNotSentOnceThisReplicaStopsWriting() {
        open = false;
        sender.submit(List.of("a"));
        awaitCalls(List.of("report a handed back"));
    }

    @Test
    void aDecisionWhoseSendingThrowsIsHandedBack() {
        script(sends, "b", "applied");
        sender.submit(List.of("throws-a", "b"));
        awaitCalls(List.of("report throws-a handed back", "send b", "report b applied", "settled b applied"));
    }

    @Test
    void closingHandsBackWhatWaitsAndLeavesWhatIsOnTheWire() {
        CompletableFuture<String> onTheWire = new CompletableFuture<>();
        sends.computeIfAbsent("a", k -> new ArrayDeque<>()).add(onTheWire);
        sender.submit(List.of("a", "b", "c"));
        await().atMost(PATIENCE).until(() -> calls.contains("send a"));
        assertEquals(2, sender.backlog());
        assertEquals(2, sender.close());
        assertEquals(List.of("send a", "report b handed back", "report c handed back"), calls);
        assertEquals(1, sender.inFlight());
        onTheWire.complete("applied");
        awaitCalls(List.of("send a", "report b handed back", "report c handed back", "report a applied",
                "settled a applied"));
    }
}
