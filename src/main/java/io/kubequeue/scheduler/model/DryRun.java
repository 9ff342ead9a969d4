package io.kubequeue.scheduler.model;

/**
 * What would happen to a job submitted now, without queueing it.
 *
 * @param group    the quota group it would queue in; null if none
 * @param priority its priority as resolved now
 * @param fitsNow  whether its request fits its group and every ancestor now
 * @param position where it would stand in its group's queue, from 1 (0 if it has no group or never fits)
 * @param reason   why it would wait, with the numbers (as in {@link io.kubequeue.scheduler.Scheduler#pending});
 *                 "fits now" if it would not
 */
public record DryRun(String group, int priority, boolean fitsNow, int position, Explanation reason) {
}
