package io.kubequeue.scheduler.model;

import java.time.Instant;
import java.util.List;

/**
 * What a change of the quota groups or the policy switches would do to the queue (issue 30): every pending job's
 * place and estimate now and under the change, from two replays of the same state. Nothing is written.
 *
 * @param computedAt when the state was copied
 * @param jobs       every pending job, by key
 * @param groups     per quota group (the job's group now), how many of its pending jobs would start earlier, later,
 *                   or change between starting and not
 */
public record WhatIf(Instant computedAt, List<Job> jobs, List<Group> groups) {

    public WhatIf {
        jobs = List.copyOf(jobs);
        groups = List.copyOf(groups);
    }

    /**
     * One pending job, now and under the change.
     *
     * @param key          the job
     * @param group        its quota group now (null: none)
     * @param position     its place in its group's queue now (0: no group)
     * @param estimate     its estimate now
     * @param groupAfter   its quota group under the change
     * @param positionAfter its place under the change
     * @param estimateAfter its estimate under the change
     */
    public record Job(JobKey key, String group, int position, Estimate estimate, String groupAfter, int positionAfter,
                      Estimate estimateAfter) {
    }

    /**
     * The jobs of one quota group, summed.
     *
     * @param group        the group
     * @param earlier      jobs estimated to start earlier under the change (or to start where they would not)
     * @param later        jobs estimated to start later (or no longer to start)
     * @param shiftSeconds the sum over jobs estimated both times of (start under the change − start now), seconds:
     *                     negative is a gain
     */
    public record Group(String group, int earlier, int later, long shiftSeconds) {
    }
}
