package io.kubequeue.scheduler.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.JobPriority;
import io.kubequeue.scheduler.model.Resources;

/**
 * The core's global backoff order is a heap of the entries, each knowing its slot (issue 27): after any mix of adds
 * (again, too), removals (of entries not in it, too) and polls, its size, membership and least entry are those of a
 * sorted set in the same order, and a poll answers what that set's first would be.
 */
class EntryHeapTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final List<JobEntry> JOBS = new ArrayList<>();

    static {
        for (int i = 0; i < 30; i++) {
            JobObservation o = new JobObservation(new JobKey("Job", "ns", "j" + i), null, JobObservation.Phase.QUEUED,
                    Resources.NONE, JobPriority.NONE, T0.plusSeconds(i % 4), null, true, null);
            JobEntry e = new JobEntry(o, T0, i % 2);
            e.setRetryAt(T0.plusMillis((i * 37) % 11)); // equal retry times: the queue order decides
            JOBS.add(e);
        }
    }

    /** Op: 0 add, 1 remove, 2 poll the first. */
    record Op(int kind, int which) {
    }

    @Provide
    Arbitrary<List<Op>> ops() {
        return net.jqwik.api.Combinators.combine(Arbitraries.integers().between(0, 2),
                Arbitraries.integers().between(0, JOBS.size() - 1)).as(Op::new).list().ofMaxSize(200);
    }

    @Property
    void answersAsASortedSetInTheSameOrder(@ForAll("ops") List<Op> ops) {
        JOBS.forEach(e -> e.retrySlot = -1);
        EntryHeap heap = new EntryHeap(QueueOrder.RETRY, EntryHeap.Slot.RETRY);
        TreeSet<JobEntry> model = new TreeSet<>(QueueOrder.RETRY);
        for (Op op : ops) {
            JobEntry e = JOBS.get(op.which());
            switch (op.kind()) {
                case 0 -> assertEquals(model.add(e), heap.add(e));
                case 1 -> assertEquals(model.remove(e), heap.remove(e));
                default -> assertSame(model.pollFirst(), heap.pollFirst());
            }
            assertEquals(model.size(), heap.size());
            assertSame(model.isEmpty() ? null : model.first(), heap.first());
            for (JobEntry j : JOBS) {
                assertEquals(model.contains(j), heap.contains(j), j.job.key().toString());
            }
        }
        heap.clear();
        assertEquals(0, heap.size());
        JOBS.forEach(j -> assertEquals(-1, j.retrySlot, "clear lets every entry go"));
    }
}
