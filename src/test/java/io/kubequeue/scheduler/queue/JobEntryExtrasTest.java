package io.kubequeue.scheduler.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Function;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.Eviction;
import io.kubequeue.scheduler.model.EvictionMarks;
import io.kubequeue.scheduler.model.Explanation;
import io.kubequeue.scheduler.model.Hold;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.JobPriority;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.scheduler.model.Resources;

/**
 * Issue 27: the fields few jobs set live in one side object a pending job does not hold ({@link JobEntry}'s
 * {@code Extras}), made on the first set to a non-default value and let go when all are back at their defaults. Each
 * field reads back what was set last, whatever is set or reset beside it.
 */
class JobEntryExtrasTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final AdmissionRecord RECORD = new AdmissionRecord("g", "2026-01-01T00:00:00.000Z");
    private static final JobObservation OBSERVED = new JobObservation(new JobKey("Job", "a", "j"), null,
            JobObservation.Phase.QUEUED, Resources.of("cpu", 1000L), JobPriority.NONE, T0, null, true, null);

    /** One field: how to read it, set it, its default and a value that is not. */
    record Field(String name, Function<JobEntry, Object> get, BiConsumer<JobEntry, Object> set, Object unset,
                 Object value) {
        @Override
        public String toString() {
            return name;
        }
    }

    static final List<Field> FIELDS = List.of(
            new Field("answer", JobEntry::answer, (e, v) -> e.answer((AdmissionAnswer) v), AdmissionAnswer.NONE,
                    AdmissionAnswer.NONE.confirmed("7").newestSeen(OBSERVED, true)),
            new Field("outdatedAt", JobEntry::outdatedAt, (e, v) -> e.outdatedAt((String) v), null, "8"),
            new Field("eviction", JobEntry::eviction, (e, v) -> e.eviction((EvictionState) v), EvictionState.NONE,
                    EvictionState.NONE.withTimeoutAt(T0).started(new Eviction(OBSERVED.key(), null, RECORD,
                            Eviction.Reason.TIMEOUT, null, null, Resources.NONE, T0, EvictionMarks.NONE))),
            new Field("yieldsTo", JobEntry::yieldsTo, (e, v) -> e.yieldsTo((JobKey) v), null, OBSERVED.key()),
            new Field("draining", JobEntry::draining, (e, v) -> e.draining((JobObservation) v), null, OBSERVED),
            new Field("spentUpTo", JobEntry::spentUpTo, (e, v) -> e.spentUpTo((Instant) v), null, T0),
            new Field("lastHold", JobEntry::lastHold, (e, v) -> e.lastHold((Hold) v), null,
                    new Hold(OBSERVED.key(), Hold.Reason.NEVER_FITS, Explanation.of("x"))),
            new Field("admittedCountedIn", JobEntry::admittedCountedIn, (e, v) -> e.admittedCountedIn((String) v),
                    null, "g"));

    /** Sets field {@code field} to its value ({@code on}) or its default. */
    record Step(int field, boolean on) {
    }

    @Provide
    Arbitrary<List<Step>> steps() {
        return net.jqwik.api.Combinators.combine(Arbitraries.integers().between(0, FIELDS.size() - 1),
                Arbitraries.of(true, false)).as(Step::new).list().ofMaxSize(60);
    }

    @Property(tries = 300)
    void eachFieldReadsBackItsLastSetAndTheSideObjectIsHeldExactlyWhileOneIsNotAtItsDefault(
            @ForAll("steps") List<Step> steps) {
        JobEntry entry = new JobEntry(OBSERVED, T0, 0);
        boolean[] set = new boolean[FIELDS.size()];
        for (Step step : steps) {
            Field f = FIELDS.get(step.field());
            f.set().accept(entry, step.on() ? f.value() : f.unset());
            set[step.field()] = step.on();
            boolean any = false;
            for (int i = 0; i < FIELDS.size(); i++) {
                Field g = FIELDS.get(i);
                assertEquals(set[i] ? g.value() : g.unset(), g.get().apply(entry), g.name() + " after " + steps);
                any |= set[i];
            }
            assertEquals(any, entry.holdsExtras(), () -> "side object held after " + steps);
        }
    }
}
