package io.kubequeue.scheduler.model;

/**
 * What became of one admission, as the admission side found out; {@link io.kubequeue.scheduler.Scheduler#settle} settles the admission
 * with it in one call. Every way an admission can end is one of these:
 * <ul>
 *   <li>{@link Applied}: the patch applied; the answer carried the job's new resourceVersion;</li>
 *   <li>{@link Refused}: not applied (its {@code test} op failed, a definite 4xx, or it was handed back unsent):
 *       the charge is undone and the job backs off; if the job changed since the decision, it is decided again on
 *       its new copy instead, without backoff;</li>
 *   <li>{@link Gone}: the job is gone (404, or another uid now has its name): forgotten;</li>
 *   <li>{@link StartedByHand}: refused because the job was started by hand meanwhile: the charge stays, as
 *       started outside kube-queue;</li>
 *   <li>{@link TakenOver}: refused because another replica admitted it: charged as that replica's record says;</li>
 *   <li>{@link Unknown}: the answer was lost and the job could not be read back: the charge stays until a read
 *       settles it.</li>
 * </ul>
 */
public sealed interface AdmissionOutcome {

    /** Not applied. */
    AdmissionOutcome REFUSED = new Refused();
    /** The job is gone. */
    AdmissionOutcome GONE = new Gone();
    /** Outcome unknown. */
    AdmissionOutcome UNKNOWN = new Unknown();

    /** @param resourceVersion the {@code metadata.resourceVersion} of the patch's answer (or of the job read back) */
    record Applied(String resourceVersion) implements AdmissionOutcome {
    }

    /**
     * See {@link #REFUSED}.
     *
     * @param changedTo the job's resourceVersion when it was found changed since the decision (the patch's version
     *                  test failed, or the change was seen before sending): then it is decided again on its new copy
     *                  at once, with no backoff; null for any other refusal
     */
    record Refused(String changedTo) implements AdmissionOutcome {
        /** A refusal that is not a change of the job. */
        public Refused() {
            this(null);
        }
    }

    /** See {@link #GONE}. */
    record Gone() implements AdmissionOutcome {
    }

    /** @param resourceVersion the version read, which showed the job running; a later suspended copy re-suspends */
    record StartedByHand(String resourceVersion) implements AdmissionOutcome {
    }

    /**
     * @param found           the admission record read on the job
     * @param resourceVersion the version read; an older copy seen later is not a re-suspension
     */
    record TakenOver(AdmissionRecord found, String resourceVersion) implements AdmissionOutcome {
    }

    /** See {@link #UNKNOWN}. */
    record Unknown() implements AdmissionOutcome {
    }
}
