package io.kubequeue.scheduler;

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
 */
public record CycleResult(List<Admission> admissions, List<Hold> holds, int tried, List<Unschedulable> unschedulable,
                          int notFitting, int heldInCycle) {

    /**
     * A job that did not fit.
     *
     * @param key    the job
     * @param group  its quota group
     * @param reason the resource, node, request, use and limit that stopped it
     */
    public record Unschedulable(JobKey key, String group, String reason) {
    }

    public CycleResult {
        admissions = List.copyOf(admissions);
        holds = List.copyOf(holds);
        unschedulable = List.copyOf(unschedulable);
    }

    /** A result without first-time unschedulable jobs. */
    public CycleResult(List<Admission> admissions, List<Hold> holds, int tried) {
        this(admissions, holds, tried, List.of(), 0, 0);
    }

    /** Whether the cycle decided nothing. */
    public boolean isEmpty() {
        return admissions.isEmpty() && holds.isEmpty();
    }
}
