package io.kubequeue.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import io.kubequeue.events.EventTally.Cause;
import io.kubequeue.events.EventTally.Outcome;

/**
 * The events' budget, counted on a clock of the test's own (never timed): repeats per object and reason combined,
 * one cluster-wide bucket (Warnings borrow one burst, then wait), nothing written while admissions wait, and every
 * event asked for counted once.
 */
class EventBudgetTest {

    private static final long SECOND = 1_000_000_000L;

    private final AtomicLong nanos = new AtomicLong();
    private final AtomicInteger admissionsWaiting = new AtomicInteger();
    private final EventTally tally = new EventTally();

    private EventBudget<String> budget(int perSecond, int burst, Duration interval, Duration maxWait, int queued) {
        EventBudget<String> budget = new EventBudget<>(new EventBudget.Settings(perSecond, burst, interval, maxWait,
                queued), nanos::get, tally);
        budget.sendAfter(admissionsWaiting::get);
        return budget;
    }

    private EventBudget<String> roomy() {
        return budget(1000, 1000, Duration.ofMinutes(1), Duration.ofSeconds(30), 1000);
    }

    private static void normal(EventBudget<String> budget, String object, String reason, String message) {
        budget.offer(object + "/" + reason, object, false, reason, message);
    }

    private static void warning(EventBudget<String> budget, String object, String reason, String message) {
        budget.offer(object + "/" + reason, object, true, reason, message);
    }

    /** Everything the budget hands out now, each written. */
    private static List<EventBudget.Ready<String>> writeAll(EventBudget<String> budget) {
        List<EventBudget.Ready<String>> written = new ArrayList<>();
        for (Optional<EventBudget.Ready<String>> next = budget.next(); next.isPresent(); next = budget.next()) {
            written.add(next.get());
            budget.written(next.get());
        }
        return written;
    }

    private void advance(long by) {
        nanos.addAndGet(by);
    }

    @Test
    void aBurstOfOneReasonOnOneObjectIsTheFirstEventThenOneThatSaysHowManyItCombines() {
        EventBudget<String> budget = roomy();
        for (int i = 1; i <= 10; i++) {
            normal(budget, "job-a", "Reclaiming", "waits for job " + i);
        }
        normal(budget, "job-b", "Reclaiming", "waits for job 1"); // another object: its own
        normal(budget, "job-a", "Pending", "does not fit"); // another reason: its own

        List<EventBudget.Ready<String>> first = writeAll(budget);
        assertEquals(List.of("10 events of this reason combined; the latest: waits for job 10", "waits for job 1",
                "does not fit"), first.stream().map(EventBudget.Ready::message).toList(),
                "job-a's ten waited together: one event");
        assertEquals(10, first.get(0).combined());

        // within the interval after a write, repeats wait and join: written once, when it ends
        for (int i = 11; i <= 20; i++) {
            advance(SECOND);
            normal(budget, "job-a", "Reclaiming", "waits for job " + i);
        }
        assertEquals(List.of(), writeAll(budget), "the interval has not ended");
        advance(50 * SECOND);
        List<EventBudget.Ready<String>> second = writeAll(budget);
        assertEquals(List.of("10 events of this reason combined; the latest: waits for job 20"),
                second.stream().map(EventBudget.Ready::message).toList());

        assertEquals(3, tally.count("Reclaiming", Outcome.WRITTEN), "job-a twice, job-b once");
        assertEquals(18, tally.count("Reclaiming", Outcome.AGGREGATED));
        assertEquals(0, tally.count("Reclaiming", Outcome.DROPPED));
    }

    @Test
    void theSameMessageAgainIsNotAnEvent() {
        EventBudget<String> budget = roomy();
        normal(budget, "job-a", "Pending", "does not fit");
        normal(budget, "job-a", "Pending", "does not fit");
        assertEquals(1, writeAll(budget).size());
        advance(3600 * SECOND);
        normal(budget, "job-a", "Pending", "does not fit");
        assertEquals(0, writeAll(budget).size(), "said already");
        assertEquals(1, tally.count("Pending", Outcome.WRITTEN));
        assertEquals(0, tally.count("Pending", Outcome.AGGREGATED) + tally.count("Pending", Outcome.DROPPED));
    }

    @Test
    void oneBucketForAllEvents_normalOnesPastItAreDroppedAndCounted() {
        EventBudget<String> budget = budget(5, 10, Duration.ofMinutes(1), Duration.ofSeconds(30), 1000);
        for (int i = 0; i < 100; i++) {
            normal(budget, "job-" + i, "Admitted", "admitted");
        }
        assertEquals(10, writeAll(budget).size(), "the burst");
        advance(SECOND);
        for (int i = 100; i < 200; i++) {
            normal(budget, "job-" + i, i % 2 == 0 ? "Admitted" : "Queued", "said");
        }
        assertEquals(5, writeAll(budget).size(), "one second's rate, every reason together");
        assertEquals(15, tally.count("Admitted", Outcome.WRITTEN) + tally.count("Queued", Outcome.WRITTEN));
        assertEquals(185, tally.count(new EventTally.Key("Admitted", Outcome.DROPPED, Cause.RATE_LIMIT))
                + tally.count(new EventTally.Key("Queued", Outcome.DROPPED, Cause.RATE_LIMIT)));
    }

    @Test
    void warningsCountInTheBucketBorrowOneBurstThenWaitAndAreNeverDroppedForIt() {
        EventBudget<String> budget = budget(5, 10, Duration.ofMinutes(1), Duration.ofSeconds(30), 1000);
        for (int i = 0; i < 10; i++) {
            normal(budget, "job-" + i, "Admitted", "admitted");
        }
        assertEquals(10, writeAll(budget).size());
        for (int i = 0; i < 15; i++) {
            warning(budget, "bad-" + i, "InvalidJob", "cannot read spec");
        }
        assertEquals(10, writeAll(budget).size(), "the bucket lends one burst");
        normal(budget, "job-x", "Admitted", "admitted");
        assertEquals(0, writeAll(budget).size());
        assertEquals(1, tally.count(new EventTally.Key("Admitted", Outcome.DROPPED, Cause.RATE_LIMIT)),
                "a Normal event waits for no debt to be repaid");
        assertEquals(5, budget.waiting(), "the Warnings past the debt wait");

        advance(SECOND); // five tokens: the debt shrinks to 5, and 5 Warnings may borrow again
        assertEquals(5, writeAll(budget).size());
        assertEquals(15, tally.count("InvalidJob", Outcome.WRITTEN));
        assertEquals(0, tally.count("InvalidJob", Outcome.DROPPED));
    }

    @Test
    void eventsWaitWhileAdmissionsWaitAndGoAfterThem() {
        EventBudget<String> budget = roomy();
        admissionsWaiting.set(3);
        normal(budget, "job-a", "Admitted", "admitted");
        warning(budget, "bad", "InvalidJob", "cannot read spec");
        assertEquals(List.of(), writeAll(budget), "admissions wait: no event goes before them");
        advance(10 * SECOND);
        assertEquals(List.of(), writeAll(budget));

        admissionsWaiting.set(0);
        assertEquals(List.of("job-a", "bad"), writeAll(budget).stream().map(EventBudget.Ready::target).toList());
    }

    @Test
    void aNormalEventThatWaitsTooLongBehindAdmissionsIsDroppedAndCounted_aWarningWaitsOn() {
        EventBudget<String> budget = budget(1000, 1000, Duration.ofMinutes(1), Duration.ofSeconds(30), 1000);
        admissionsWaiting.set(1);
        normal(budget, "job-a", "Admitted", "admitted");
        warning(budget, "bad", "InvalidJob", "cannot read spec");
        advance(31 * SECOND);
        assertEquals(List.of(), writeAll(budget));
        assertEquals(1, tally.count(new EventTally.Key("Admitted", Outcome.DROPPED, Cause.WAITED_TOO_LONG)));

        advance(600 * SECOND);
        admissionsWaiting.set(0);
        assertEquals(List.of("bad"), writeAll(budget).stream().map(EventBudget.Ready::target).toList());
    }

    @Test
    void aCombinedEventWaitsItsIntervalBeforeItsMaxWaitStarts() {
        EventBudget<String> budget = budget(1000, 1000, Duration.ofMinutes(1), Duration.ofSeconds(30), 1000);
        normal(budget, "job-a", "Reclaiming", "one");
        writeAll(budget);
        normal(budget, "job-a", "Reclaiming", "two");
        advance(70 * SECOND); // due at 60 s, waited 10 s since
        assertEquals(List.of("two"), writeAll(budget).stream().map(EventBudget.Ready::message).toList());
    }

    @Test
    void aFullQueueDropsItsOldestNormalEventAndCountsIt() {
        EventBudget<String> budget = budget(1000, 1000, Duration.ofMinutes(1), Duration.ofSeconds(30), 3);
        admissionsWaiting.set(1);
        warning(budget, "bad", "InvalidJob", "cannot read spec");
        for (int i = 0; i < 4; i++) {
            normal(budget, "job-" + i, "Admitted", "admitted");
        }
        assertEquals(3, budget.waiting());
        assertEquals(2, tally.count(new EventTally.Key("Admitted", Outcome.DROPPED, Cause.QUEUE_FULL)));
        warning(budget, "bad-2", "InvalidJob", "cannot read spec");
        warning(budget, "bad-3", "InvalidJob", "cannot read spec");
        warning(budget, "bad-4", "InvalidJob", "cannot read spec"); // only Warnings wait: this one is dropped
        assertEquals(1, tally.count(new EventTally.Key("InvalidJob", Outcome.DROPPED, Cause.QUEUE_FULL)));

        admissionsWaiting.set(0);
        assertEquals(List.of("bad", "bad-2", "bad-3"),
                writeAll(budget).stream().map(EventBudget.Ready::target).toList());
    }

    @Test
    void aFailedWriteIsCountedAndTheSameEventMayBeWrittenAgain() {
        EventBudget<String> budget = roomy();
        normal(budget, "job-a", "Pending", "does not fit");
        budget.failed(budget.next().orElseThrow());
        assertEquals(1, tally.count(new EventTally.Key("Pending", Outcome.DROPPED, Cause.WRITE_FAILED)));
        normal(budget, "job-a", "Pending", "does not fit");
        assertEquals(1, writeAll(budget).size(), "forgotten: its next occurrence is written");
    }

    @Test
    void everyEventAskedForIsCountedOnce() {
        EventBudget<String> budget = budget(5, 20, Duration.ofSeconds(10), Duration.ofSeconds(5), 50);
        java.util.Random random = new java.util.Random(27);
        int asked = 0;
        for (int step = 0; step < 2000; step++) {
            admissionsWaiting.set(random.nextInt(3) == 0 ? 1 : 0);
            int object = random.nextInt(40);
            String message = "m" + step; // never an exact repeat
            if (random.nextInt(10) == 0) {
                warning(budget, "obj-" + object, "InvalidJob", message);
            } else {
                normal(budget, "obj-" + object, "Admitted", message);
            }
            asked++;
            advance(random.nextInt(200_000_000));
            if (random.nextBoolean()) {
                writeAll(budget);
            }
        }
        admissionsWaiting.set(0);
        advance(3600 * SECOND);
        writeAll(budget);
        long counted = 0;
        for (String reason : List.of("Admitted", "InvalidJob")) {
            for (Outcome outcome : Outcome.values()) {
                counted += tally.count(reason, outcome);
            }
        }
        assertEquals(0, budget.waiting());
        assertEquals(asked, counted, "written + aggregated + dropped = asked");
        assertTrue(tally.count("Admitted", Outcome.WRITTEN) + tally.count("InvalidJob", Outcome.WRITTEN)
                <= 20 + 5 * (nanos.get() / SECOND) + 20, "within the bucket (Warnings borrow one burst)");
    }
}
