package io.kubequeue.scheduler.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

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
 * Issue 27: a backed-off job that waits alone costs no {@code BackoffWave}; it waits in {@link LoneWaiters}, an
 * open-addressing table whose deletion moves entries back, which a model checks. (The waves the facade makes of lone
 * waiters: {@code BackoffWavesOfLoneWaitersTest}.)
 */
class LoneWaitersTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    private static JobEntry entry(int id, String group, long cpu, Instant retryAt, int attempts) {
        JobObservation o = new JobObservation(new JobKey("Job", "ns", "j" + id), null, JobObservation.Phase.QUEUED,
                Resources.of("cpu", cpu), JobPriority.NONE, T0, null, true, null);
        JobEntry e = new JobEntry(o, T0, 0);
        e.group = group;
        e.setRetryAt(retryAt);
        e.attempts = attempts;
        return e;
    }

    /** Op: 0 add, 1 take alike, 2 remove; on one of {@code n} entries of few keys (so that probes collide). */
    record Op(int kind, int which) {
    }

    @Provide
    Arbitrary<List<Op>> ops() {
        return net.jqwik.api.Combinators.combine(Arbitraries.integers().between(0, 2),
                Arbitraries.integers().between(0, 59)).as(Op::new).list().ofMaxSize(400);
    }

    @Property(tries = 300)
    void behavesAsAListOfTheEntriesIn(@ForAll("ops") List<Op> ops) {
        List<JobEntry> all = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            all.add(entry(i, "g" + (i % 3), 1000L * (i % 2 + 1), T0.plusSeconds(i % 4), i % 5));
        }
        LoneWaiters table = new LoneWaiters();
        List<JobEntry> model = new ArrayList<>();
        for (Op op : ops) {
            JobEntry e = all.get(op.which());
            switch (op.kind()) {
                case 0 -> {
                    table.add(e);
                    if (!model.contains(e)) {
                        model.add(e);
                    }
                }
                case 1 -> {
                    JobEntry taken = table.take(e.group, e.effectiveRequest(), e.job.preemptible(), e.ownRetryAt(),
                            e.attempts);
                    JobEntry alike = model.stream().filter(m -> m.group.equals(e.group) && m.attempts == e.attempts
                            && m.ownRetryAt().equals(e.ownRetryAt()) && m.effectiveRequest().equals(e.effectiveRequest()))
                            .findFirst().orElse(null);
                    if (alike == null) {
                        assertNull(taken);
                    } else {
                        assertTrue(taken != null && model.contains(taken) && taken.group.equals(e.group)
                                && taken.attempts == e.attempts && taken.ownRetryAt().equals(e.ownRetryAt()));
                        model.remove(taken);
                    }
                }
                default -> assertEquals(model.remove(e), table.remove(e));
            }
            assertEquals(model.size(), table.size());
            for (JobEntry m : all) {
                assertEquals(model.contains(m), table.contains(m), () -> "after " + op);
            }
        }
    }
}
