package io.kubequeue.scheduler.model;

import java.util.List;

/**
 * What one scheduling cycle decided.
 *
 * @param admissions jobs admitted in this cycle, in the order they were admitted; already charged
 * @param holds      jobs newly held in this cycle (each hold is reported once, until its reason changes)
 * @param tried      how many jobs the cycle tried (admitted, held, or found not to fit): what it cost
 * @param unschedulable jobs that did not fit for the first time since they were queued, with the reason (for a
 *                   {@code Pending} event: one per job and queueing, not one per retry)
 * @param notFitting how many of the jobs tried did not fit
 * @param heldInCycle how many of the jobs tried were found never to fit and held
 * @param evictions  admitted jobs to suspend again (reclaim victims, timed-out admissions); they stay charged until
 *                   they are seen suspended
 * @param reclaims   reclaims started in this cycle, each with its victims (also in {@code evictions})
 * @param failure    what went wrong in this cycle, or null if nothing did. Whatever it was, the result holds every
 *                   admission the cycle charged (hand them all out) and every eviction it decided; a job it was
 *                   deciding when the failure came and did not charge waits in backoff. The next cycle runs as usual.
 */
public record CycleResult(List<Admission> admissions, List<Hold> holds, int tried, List<Unschedulable> unschedulable,
                          int notFitting, int heldInCycle, List<Eviction> evictions, List<Reclaim> reclaims,
                          RuntimeException failure) {

    /**
     * A reclaim: a job that fits its group's min but not the free room, and the jobs of borrowing groups suspended
     * to make room for it (docs/policies.md, "Reclaim").
     *
     * @param preemptor the job room is made for; admitted once every victim is seen suspended
     * @param group     its quota group, which reclaims its min
     * @param victims   the jobs suspended for it
     * @param victimGroups each victim's quota group, in the same order (what a reader who may not see a victim is told)
     * @param resources the resources the reclaim frees, sorted: those the preemptor is short of somewhere on its path;
     *                  the victims' groups keep their min of each of these (and only of these)
     */
    public record Reclaim(JobKey preemptor, String group, List<JobKey> victims, List<String> victimGroups,
                          java.util.SortedSet<String> resources) {

        /** A reclaim whose freed resources are not told (empty). */
        public Reclaim(JobKey preemptor, String group, List<JobKey> victims, List<String> victimGroups) {
            this(preemptor, group, victims, victimGroups, new java.util.TreeSet<>());
        }

        public Reclaim {
            resources = java.util.Collections.unmodifiableSortedSet(new java.util.TreeSet<>(resources));
            victims = List.copyOf(victims);
            victimGroups = java.util.Collections.unmodifiableList(new java.util.ArrayList<>(victimGroups));
            if (victimGroups.size() != victims.size()) {
                throw new IllegalArgumentException("one group per victim: " + victims + " / " + victimGroups);
            }
        }

        /** The victims, each named only to a reader who may see it (see {@link Explanation}). */
        public Explanation victimsExplained() {
            return Explanation.jobs(victims, victimGroups);
        }
    }

    /**
     * A job that did not fit.
     *
     * @param key    the job
     * @param group  its quota group
     * @param reason the resource, node, request, use and limit that stopped it; null if it could not be told
     */
    public record Unschedulable(JobKey key, String group, Explanation reason) {
    }

    public CycleResult {
        admissions = List.copyOf(admissions);
        holds = List.copyOf(holds);
        unschedulable = List.copyOf(unschedulable);
        evictions = List.copyOf(evictions);
        reclaims = List.copyOf(reclaims);
    }

    /** The result of a cycle that ran to its end. */
    public CycleResult(List<Admission> admissions, List<Hold> holds, int tried, List<Unschedulable> unschedulable,
                       int notFitting, int heldInCycle, List<Eviction> evictions, List<Reclaim> reclaims) {
        this(admissions, holds, tried, unschedulable, notFitting, heldInCycle, evictions, reclaims, null);
    }

    /** A result that evicts nothing. */
    public CycleResult(List<Admission> admissions, List<Hold> holds, int tried, List<Unschedulable> unschedulable,
                       int notFitting, int heldInCycle) {
        this(admissions, holds, tried, unschedulable, notFitting, heldInCycle, List.of(), List.of());
    }

    /** A result without first-time unschedulable jobs. */
    public CycleResult(List<Admission> admissions, List<Hold> holds, int tried) {
        this(admissions, holds, tried, List.of(), 0, 0);
    }

    /** Whether the cycle decided nothing. */
    public boolean isEmpty() {
        return admissions.isEmpty() && holds.isEmpty() && evictions.isEmpty();
    }
}
