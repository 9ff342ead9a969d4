package io.kubequeue.scheduler.ledger;

import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.Resources;

/**
 * A job as the ledger sees it: what it asks for, and the two slots the ledger alone writes (its {@link Charge} and the
 * group whose admitted jobs it is counted in). The queue's entries implement it, so the ledger, which lies below the
 * queue, never names them (docs/architecture.md, "The scheduler core"). Only the core calls it, under the scheduler's
 * lock.
 */
public interface Chargeable {

    /** The copy of the job it is decided on. */
    JobObservation job();

    /** Its request plus one job of the {@link Resources#MAX_JOBS} pseudo-resource (millicores, bytes, counts). */
    Resources effectiveRequest();

    /** What it is charged while admitted; null while pending. */
    Charge charge();

    /** Only {@link QuotaLedger} sets it ({@code ArchitectureTest.everyFieldOfTheCoreHasOneWriter}). */
    void charge(Charge charge);

    /** The group whose admitted jobs it is counted in ({@link QuotaLedger#admittedIn}), or null. */
    String admittedCountedIn();

    /** Only {@link QuotaLedger} sets it. */
    void admittedCountedIn(String group);

    /** The admission it is charged under; null while it is not charged. */
    default AdmissionRecord record() {
        Charge charge = charge();
        return charge == null ? null : charge.record();
    }

    /** The group its charge is counted in; null while not charged, or when that group is not in force. */
    default String chargedGroup() {
        Charge charge = charge();
        return charge == null ? null : charge.group();
    }

    /** What it is charged (millicores, bytes, counts); {@link Resources#NONE} while not charged. */
    default Resources charged() {
        Charge charge = charge();
        return charge == null ? Resources.NONE : charge.amount();
    }

    /** Whether its charge counts against min (it is non-preemptible). */
    default boolean chargedGuaranteed() {
        Charge charge = charge();
        return charge != null && charge.guaranteed();
    }

    /** Runs with a request that cannot be read: charged one job, and holds its groups (see {@link UnknownUse}). */
    default boolean chargeUnknown() {
        Charge charge = charge();
        return charge != null && charge.unknown();
    }
}
