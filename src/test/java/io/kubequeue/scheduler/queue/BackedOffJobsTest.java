package io.kubequeue.scheduler.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
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
 * A group's backed-off jobs hold each job once, in its shape's set (issue 27), and still read as one set in queue
 * order: after any mix of adds, removals and removals through a shape's cursor, the first job, the size, the order
 * of the whole, each shape's cursor and the count ahead of a job are those of one sorted set of every job.
 */
class BackedOffJobsTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    /** 40 jobs: 4 shapes (cpu 1..4), two priorities, creation times that interleave across shapes. */
    private static final List<JobEntry> JOBS = new ArrayList<>();

    static {
        for (int i = 0; i < 40; i++) {
            JobObservation o = new JobObservation(new JobKey("Job", "ns", "j" + i), null, JobObservation.Phase.QUEUED,
                    Resources.of("cpu", 1000L * (1 + i % 4)), JobPriority.NONE,
                    T0.plusSeconds((i * 7) % 13), null, i % 5 == 0, null);
            JOBS.add(new JobEntry(o, T0, i % 3 == 0 ? 10 : 0));
        }
    }

    /** Op: 0 add, 1 remove, 2 remove through the job's shape cursor. */
    record Op(int kind, int which) {
    }

    @Provide
    Arbitrary<List<Op>> ops() {
        return net.jqwik.api.Combinators.combine(Arbitraries.integers().between(0, 2),
                Arbitraries.integers().between(0, JOBS.size() - 1)).as(Op::new).list().ofMaxSize(200);
    }

    @Property
    void readsAsOneSortedSetOfEveryJob(@ForAll("ops") List<Op> ops) {
        BackedOffJobs set = new BackedOffJobs();
        TreeSet<JobEntry> model = new TreeSet<>(QueueOrder.JOBS);
        for (Op op : ops) {
            JobEntry e = JOBS.get(op.which());
            switch (op.kind()) {
                case 0 -> assertEquals(model.add(e), set.add(e));
                case 1 -> assertEquals(model.remove(e), set.remove(e));
                default -> {
                    BackedOffJobs.Shape shape = BackedOffJobs.Shape.of(e);
                    if (set.shapes().contains(shape)) {
                        Iterator<JobEntry> cursor = set.cursor(shape);
                        while (cursor.hasNext()) {
                            if (cursor.next() == e) {
                                cursor.remove();
                                model.remove(e);
                            }
                        }
                    }
                }
            }
            assertEquals(model.size(), set.size());
            assertEquals(model.isEmpty(), set.isEmpty());
            if (!model.isEmpty()) {
                assertEquals(model.first(), set.first());
            }
            List<JobEntry> order = new ArrayList<>();
            set.forEach(order::add);
            assertEquals(List.copyOf(model), order);
            for (BackedOffJobs.Shape shape : set.shapes()) {
                List<JobEntry> ofShape = new ArrayList<>();
                set.cursor(shape).forEachRemaining(ofShape::add);
                assertFalse(ofShape.isEmpty(), "a shape present has a job");
                assertEquals(model.stream().filter(j -> BackedOffJobs.Shape.of(j).equals(shape)).toList(), ofShape);
            }
            JobEntry probe = JOBS.get((op.which() * 11) % JOBS.size());
            assertEquals(model.headSet(probe).size(), set.countBefore(probe));
        }
        assertTrue(set.shapes().size() <= 8);
    }
}
