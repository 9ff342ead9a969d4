package io.kubequeue.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

import org.junit.jupiter.api.Test;

import io.kubequeue.scheduler.model.Admission;
import io.kubequeue.scheduler.model.AdmissionOutcome;
import io.kubequeue.scheduler.model.CycleResult;
import io.kubequeue.scheduler.model.Eviction;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.JobStatus;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.scheduler.model.SchedulerSettings;
import io.kubequeue.scheduler.model.SchedulingPolicy;

/**
 * {@code Scheduler.copy} in states the random scenarios of {@code SchedulerCopyPropertiesTest} reach too seldom to
 * catch a part left out of the copy: a reclaim in progress (preemptor held, victims being evicted), an admission
 * timeout being watched, an admission whose answer was lost, a release the retry-on-release policy has not acted on
 * yet, a job seen ended whose stale
 * copy arrives later. Each case runs twice from the same start, on the original and on a copy taken at the same
 * step, and both runs must answer alike from there; each case also shows that its state matters (the answers
 * differ from a fresh scheduler's), so that the comparison can fail.
 */
class SchedulerCopyTest {

    private static final JobKey A1 = new JobKey("Job", "a", "a1");

    /** How a case continues after the copy point: it drives the scenario and adds what it is answered. */
    private interface Steps extends BiConsumer<EvictionScenario, List<Object>> {
    }

    /**
     * The answers after the copy point: each step's own, then every job's status and each group's view.
     *
     * @param copy run the second half on a copy ({@code "copy"}), on the original ({@code "original"}), or on a
     *             fresh scheduler that knows only the tree ({@code "fresh"})
     */
    private static List<Object> run(SchedulerSettings settings, Consumer<EvictionScenario> before, Steps after,
                                    String copy) {
        EvictionScenario it = new EvictionScenario();
        it.start(settings, EvictionScenario.twoTeams());
        it.scheduler.podsListed();
        before.accept(it);
        Scheduler original = it.scheduler;
        if (copy.equals("copy")) {
            it.scheduler = original.copy(it.clock);
        } else if (copy.equals("fresh")) {
            it.start(settings, EvictionScenario.twoTeams());
            it.scheduler.podsListed();
        }
        List<Object> answers = new ArrayList<>();
        after.accept(it, answers);
        answers.add(it.scheduler.jobs().stream().sorted(Comparator.comparing(JobStatus::key)).toList());
        answers.add(it.scheduler.groups());
        answers.add(it.scheduler.nextRetry());
        return answers;
    }

    private static void copyDecidesAsTheOriginal(SchedulerSettings settings, Consumer<EvictionScenario> before,
                                                 Steps after) {
        List<Object> original = run(settings, before, after, "original");
        assertEquals(original, run(settings, before, after, "copy"));
        assertTrue(!original.equals(run(settings, before, after, "fresh")),
                "the state copied matters here: a scheduler without it answers otherwise");
    }

    @Test
    void aReclaimInProgressGoesOnInTheCopy() {
        copyDecidesAsTheOriginal(SchedulerSettings.defaults().withReclaim(3), it -> {
            for (int i = 0; i < 4; i++) {
                it.submit("b", "b" + i, 1000, 0, true);
            }
            it.cycle(); // team-b borrows team-a's 2 cpu
            it.clock.advance(Duration.ofSeconds(1));
            it.submit("a", "a1", 2000, 0, true);
        }, (it, answers) -> {
            CycleResult reclaim = it.scheduler.schedule(); // the reclaim starts: two of team-b's jobs are victims
            answers.add(reclaim.reclaims());
            answers.add(reclaim.evictions());
            reclaim.evictions().forEach(it::applyAndSee);
            answers.add(it.cycle().admissions());
        });
    }

    @Test
    void aReclaimHalfWayThroughItsEvictionsGoesOnInTheCopy() {
        List<Eviction> decided = new ArrayList<>();
        copyDecidesAsTheOriginal(SchedulerSettings.defaults().withReclaim(3), it -> {
            decided.clear();
            for (int i = 0; i < 4; i++) {
                it.submit("b", "b" + i, 1000, 0, true);
            }
            it.cycle();
            it.clock.advance(Duration.ofSeconds(1));
            it.submit("a", "a1", 2000, 0, true);
            decided.addAll(it.scheduler.schedule().evictions());
            it.applyAndSee(decided.get(0)); // one victim suspended, the other's eviction on its way
        }, (it, answers) -> {
            answers.add(it.cycle().admissions()); // not yet: room for one cpu only
            it.applyAndSee(decided.get(1));
            answers.add(it.cycle().admissions());
            answers.add(it.scheduler.status(A1).map(JobStatus::state));
        });
    }

    /**
     * A victim that ended while its reclaim goes on is no longer a job of the core, but the reclaim still names it: the
     * copy leaves it out (it counts for nothing in the original either), where it once named no entry at all and the
     * next cycle failed on it (SchedulerCopyPropertiesTest, seed -5750548638066728045).
     */
    @Test
    void aVictimThatEndedDuringItsReclaimIsLeftOutOfTheCopy() {
        List<Eviction> decided = new ArrayList<>();
        copyDecidesAsTheOriginal(SchedulerSettings.defaults().withReclaim(3), it -> {
            decided.clear();
            for (int i = 0; i < 4; i++) {
                it.submit("b", "b" + i, 1000, 0, true);
            }
            it.cycle();
            it.clock.advance(Duration.ofSeconds(1));
            it.submit("a", "a1", 2000, 0, true);
            decided.addAll(it.scheduler.schedule().evictions());
            it.finish(decided.get(0).key().namespace(), decided.get(0).key().name()); // a victim ends meanwhile
        }, (it, answers) -> {
            answers.add(it.cycle().admissions()); // the other victim still runs
            it.applyAndSee(decided.get(1));
            answers.add(it.cycle().admissions());
            answers.add(it.scheduler.status(A1).map(JobStatus::state));
        });
    }

    /** The answer state ({@code AdmissionAnswer}): a lost answer is still awaited in the copy, and settles there. */
    @Test
    void anAdmissionWhoseAnswerWasLostIsStillUnconfirmedInTheCopy() {
        List<Admission> decided = new ArrayList<>();
        copyDecidesAsTheOriginal(SchedulerSettings.defaults(), it -> {
            decided.clear();
            it.submit("a", "a1", 1000, 0, true);
            decided.addAll(it.scheduler.schedule().admissions());
            // the patch's answer was lost and the read-back failed too: the outcome is unknown
            it.scheduler.settle(A1, decided.get(0).record(), AdmissionOutcome.UNKNOWN);
        }, (it, answers) -> {
            Admission lost = decided.get(0);
            answers.add(it.scheduler.admissionUnsettled(A1, lost.record()));
            answers.add(it.scheduler.unconfirmedAdmission(A1).map(Admission::record));
            // a re-read shows it never applied: handed back, and decided again
            it.scheduler.settle(A1, lost.record(), AdmissionOutcome.REFUSED);
            answers.add(it.scheduler.admissionUnsettled(A1, lost.record()));
        });
    }

    @Test
    void anAdmissionTimeoutWatchedGoesOnInTheCopy() {
        copyDecidesAsTheOriginal(SchedulerSettings.defaults().withAdmissionTimeout(Duration.ofMinutes(10)), it -> {
            it.submit("a", "a1", 1000, 0, true);
            it.cycle();
            it.clock.advance(Duration.ofMinutes(4));
        }, (it, answers) -> {
            it.clock.advance(Duration.ofMinutes(7));
            answers.add(it.scheduler.schedule().evictions().stream().map(Eviction::reason).toList());
        });
    }

    @Test
    void aReleaseNotActedOnYetIsActedOnInTheCopy() {
        SchedulerSettings retryOnRelease = new SchedulerSettings(SchedulingPolicy.RETRY_ON_RELEASE,
                Duration.ofSeconds(10), Duration.ofSeconds(20));
        copyDecidesAsTheOriginal(retryOnRelease, it -> {
            for (int i = 0; i < 4; i++) {
                it.submit("a", "a" + i, 1000, 0, true);
            }
            it.submit("a", "a4", 1000, 0, true);
            it.cycle(); // four admitted, the fifth backs off for 10 s
            it.finish("a", "a0"); // the release: the policy retries the backed-off at the next cycle
        }, (it, answers) -> answers.add(it.cycle().admissions().stream().map(Admission::key).toList()));
    }

    @Test
    void aJobSeenEndedStaysEndedInTheCopy() {
        JobObservation[] running = new JobObservation[1];
        copyDecidesAsTheOriginal(SchedulerSettings.defaults(), it -> {
            it.submit("a", "a1", 1000, 0, true);
            it.cycle();
            running[0] = it.cluster.get(A1);
            it.finish("a", "a1");
        }, (it, answers) -> {
            answers.add(it.scheduler.observe(running[0]).change()); // a stale copy from before the end
            answers.add(it.scheduler.usage("team-a"));
        });
    }

    @Test
    void whatIsDoneToTheCopyDoesNotShowInTheOriginal() {
        EvictionScenario it = new EvictionScenario();
        Scheduler original = it.start(SchedulerSettings.defaults(), EvictionScenario.twoTeams());
        it.submit("a", "a1", 1000, 0, true);
        it.submit("a", "a2", 8000, 0, true);
        List<JobStatus> before = original.jobs();
        Scheduler copy = original.copy(it.clock);
        it.scheduler = copy;
        it.cycle();
        it.finish("a", "a1");
        copy.replaceTree(new QuotaTree(List.of()));

        assertEquals(before, original.jobs(), "the original's jobs are as they were");
        assertEquals(Resources.NONE, original.usage("team-a"));
        assertEquals(EvictionScenario.twoTeams(), original.tree());
        assertEquals(List.of(), copy.groups().stream().filter(g -> g.name().equals("team-a")).toList());
    }
}
