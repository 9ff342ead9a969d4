package io.kubequeue.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

/** The write budget's slots, on a clock the test moves by hand: counted, never timed. */
class WriteBudgetTest {

    private static final long MS = 1_000_000;

    private final AtomicLong now = new AtomicLong(5_000 * MS);

    private List<Long> takeAll(WriteBudget budget, int writes) {
        List<Long> waits = new ArrayList<>();
        for (int i = 0; i < writes; i++) {
            waits.add(budget.take());
        }
        return waits;
    }

    @Test
    void fromRestTheBurstGoesAtOnceThenOneWriteAnInterval() {
        WriteBudget budget = new WriteBudget(500, 3, now::get); // a slot every 2 ms
        assertEquals(List.of(0L, 0L, 0L, 2 * MS, 4 * MS, 6 * MS), takeAll(budget, 6));
        WriteBudget.Figures f = budget.figures();
        assertEquals(6, f.taken());
        assertEquals(3, f.held());
        assertEquals(12 * MS, f.waitedNanos());
        assertEquals(6 * MS, f.longestWaitNanos());
    }

    @Test
    void writesArrivingWhileOthersWaitQueueBehindThemInArrivalOrder() {
        WriteBudget budget = new WriteBudget(100, 1, now::get); // a slot every 10 ms, no burst beyond one
        assertEquals(List.of(0L, 10 * MS, 20 * MS), takeAll(budget, 3));
        now.addAndGet(5 * MS); // the queue reaches 30 ms from the start: a write now waits 25 ms
        assertEquals(25 * MS, budget.take());
        now.addAndGet(30 * MS); // 35 ms after the start, its slot (40 ms) has not passed
        assertEquals(5 * MS, budget.take());
    }

    @Test
    void anIdleBucketRefillsToItsBurstAndNoFurther() {
        WriteBudget budget = new WriteBudget(1_000, 2, now::get); // a slot every 1 ms, burst 2
        takeAll(budget, 10);
        now.addAndGet(60_000 * MS); // a minute idle
        assertEquals(List.of(0L, 0L, 1 * MS, 2 * MS), takeAll(budget, 4));
    }

    @Test
    void aSteadyArrivalAtTheRateNeverWaits() {
        WriteBudget budget = new WriteBudget(250, 1, now::get); // 4 ms
        for (int i = 0; i < 100; i++) {
            assertEquals(0, budget.take());
            now.addAndGet(4 * MS);
        }
        assertEquals(0, budget.figures().held());
    }

    @Test
    void aRateThatDoesNotDivideASecondRoundsItsInterval() {
        WriteBudget budget = new WriteBudget(300, 1, now::get);
        takeAll(budget, 300);
        // 299 intervals of 3,333,333 ns after the first: one second, give or take 300 ns
        assertEquals(299 * 3_333_333L, budget.take() - 3_333_333L);
    }

    @Test
    void theDefaultBurstIsTwentyMillisecondsOfTheRateAndAtLeastOne() {
        assertEquals(10, WriteBudget.defaultBurst(500));
        assertEquals(1, WriteBudget.defaultBurst(20));
        assertEquals(1, WriteBudget.defaultBurst(1));
    }

    @Test
    void aBudgetNeedsAPositiveRateAndBurst() {
        assertThrows(IllegalArgumentException.class, () -> new WriteBudget(0, 1, now::get));
        assertThrows(IllegalArgumentException.class, () -> new WriteBudget(10, 0, now::get));
    }
}
