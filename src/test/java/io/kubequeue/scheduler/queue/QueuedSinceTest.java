package io.kubequeue.scheduler.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.JobPriority;
import io.kubequeue.scheduler.model.Resources;

/**
 * Issue 27: {@link QueuedSince} is a heap of the entries themselves, each knowing its slot; its oldest time is the
 * oldest of the jobs in it, with equal times, removals of jobs not in it, and jobs that were in a set dropped whole.
 */
class QueuedSinceTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    private static JobEntry entry(int id, Instant queuedAt) {
        JobObservation o = new JobObservation(new JobKey("Job", "ns", "j" + id), null, JobObservation.Phase.QUEUED,
                Resources.NONE, JobPriority.NONE, T0, null, true, null);
        return new JobEntry(o, queuedAt, 0);
    }

    /** Op: 0 add to set A, 1 remove from A, 2 add to set B, 3 remove from B, 4 drop B whole (a new B). */
    record Op(int kind, int which) {
    }

    @Provide
    Arbitrary<List<Op>> ops() {
        return net.jqwik.api.Combinators.combine(Arbitraries.integers().between(0, 4),
                Arbitraries.integers().between(0, 39)).as(Op::new).list().ofMaxSize(300);
    }

    @Property(tries = 300)
    void theOldestIsTheOldestOfTheJobsIn(@ForAll("ops") List<Op> ops) {
        List<JobEntry> all = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            all.add(entry(i, T0.plusSeconds(i % 7))); // equal times too
        }
        QueuedSince a = new QueuedSince();
        QueuedSince b = new QueuedSince();
        List<JobEntry> inA = new ArrayList<>();
        List<JobEntry> inB = new ArrayList<>();
        for (Op op : ops) {
            JobEntry e = all.get(op.which());
            switch (op.kind()) {
                case 0 -> {
                    if (!inA.contains(e) && !inB.contains(e)) { // a job is in at most one set
                        a.add(e);
                        inA.add(e);
                    }
                }
                case 1 -> {
                    a.remove(e);
                    inA.remove(e);
                }
                case 2 -> {
                    if (!inA.contains(e) && !inB.contains(e)) {
                        b.add(e);
                        inB.add(e);
                    }
                }
                case 3 -> {
                    b.remove(e);
                    inB.remove(e);
                }
                default -> {
                    b = new QueuedSince(); // dropped whole, as a group's queue is: its jobs' slots are stale
                    inB.clear();
                }
            }
            assertEquals(oldest(inA), a.oldest(), () -> "A after " + op);
            assertEquals(oldest(inB), b.oldest(), () -> "B after " + op);
        }
    }

    @Test
    void emptyAgainHasNoOldest() {
        QueuedSince since = new QueuedSince();
        JobEntry e = entry(1, T0);
        since.add(e);
        assertEquals(T0, since.oldest());
        since.remove(e);
        since.remove(e);
        assertNull(since.oldest());
    }

    private static Instant oldest(List<JobEntry> in) {
        return in.stream().map(x -> x.queuedAt()).min(Comparator.naturalOrder()).orElse(null);
    }
}
