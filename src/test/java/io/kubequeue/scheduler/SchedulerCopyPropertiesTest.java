package io.kubequeue.scheduler;

import java.time.Duration;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The whole core can be copied and replayed (issue 28; the ground of start-time estimates and what-if): a
 * {@code Scheduler.copy} taken at any step of a scenario decides, from there on, exactly as the original does when
 * both are driven alike. The scenarios are {@link BackoffWavesPropertiesTest}'s — every policy, reclaim on or off,
 * trees whose min and max declare cpu, memory and GPUs, bursts of alike jobs, admissions applied or refused,
 * finishes, re-suspensions, deletes, edits, evictions for reclaims, tree changes, restarts and time — and after
 * every step both say the same: each cycle's admissions in order, holds, tries, first failures, evictions and
 * reclaims; every job's state, tries and retry time; each group's pending jobs with positions and reasons; the
 * next retry. The copy is taken while admissions and evictions are on their way, jobs back off in waves, reclaims
 * go on and jobs are held, wherever the step falls.
 */
class SchedulerCopyPropertiesTest {

    record CopiedScenario(BackoffWavesPropertiesTest.Scenario scenario, int copyAt) {
    }

    @Provide
    Arbitrary<CopiedScenario> copied() {
        return Combinators.combine(new BackoffWavesPropertiesTest().scenarios(), Arbitraries.integers().between(0, 160))
                .as((scenario, at) -> new CopiedScenario(scenario, at % (scenario.ops().size() + 1)));
    }

    @Property(tries = 400)
    void aCopyDecidesExactlyAsTheOriginal(@ForAll("copied") CopiedScenario copied) {
        BackoffWavesPropertiesTest.Twins twins = new BackoffWavesPropertiesTest.Twins(copied.scenario(),
                copied.copyAt());
        for (BackoffWavesPropertiesTest.Op op : copied.scenario().ops()) {
            twins.apply(op);
        }
        // and then long enough for every backoff to end, cycle by cycle
        for (int i = 0; i < 30; i++) {
            twins.clock.advance(Duration.ofSeconds(1));
            twins.apply(new BackoffWavesPropertiesTest.Op(BackoffWavesPropertiesTest.OpType.CYCLE, 0, 0));
        }
    }
}
