package io.kubequeue.scheduler.model;

/**
 * A job the scheduler cannot consider until something changes in the quota groups: it is kept, never dropped,
 * and retried when the tree changes.
 *
 * @param key    the held job
 * @param kind   the class of problem
 * @param reason why, in one line a user can act on (names the namespace, or the resource and the limit; a reclaim's
 *               names its victims, rendered per reader)
 */
public record Hold(JobKey key, Reason kind, Explanation reason) {

    /** A hold whose reason names no other job. */
    public Hold(JobKey key, Reason kind, String reason) {
        this(key, kind, Explanation.of(reason));
    }

    /** Why a job is held. */
    public enum Reason {
        /** Its namespace (or quota-name label) matches no quota group. */
        NO_QUOTA_GROUP,
        /** Its request exceeds the max of its group or of an ancestor: not even an empty group could take it. */
        NEVER_FITS,
        /**
         * It fits its group's min and reclaims it: it waits, with its room reserved, until the jobs suspended for it
         * are seen suspended, and is then admitted (docs/policies.md, "Reclaim"). Not reported as a hold.
         */
        RECLAIMING
    }
}
