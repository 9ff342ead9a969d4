package io.kubequeue.scheduler.ledger;

import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.Resources;

/**
 * What an admitted job is charged: the admission it runs under, the group it is counted in, the amount (millicores,
 * bytes, counts, and one of {@link Resources#MAX_JOBS}), whether it counts against min (non-preemptible), and
 * whether its request cannot be read (see {@link UnknownUse}). A value, made only by {@link QuotaLedger}; a pending
 * job has none ({@link Chargeable#charge} is null), so it holds none of these fields.
 *
 * @param group null if the job's group is not in force (then it counts nowhere)
 */
public record Charge(AdmissionRecord record, String group, Resources amount, boolean guaranteed, boolean unknown) {

    /** The same charge under another record (re-labelled as started outside). */
    Charge withRecord(AdmissionRecord other) {
        return new Charge(other, group, amount, guaranteed, unknown);
    }

    /** The same charge counted in another group (the groups changed). */
    Charge withGroup(String other) {
        return new Charge(record, other, amount, guaranteed, unknown);
    }
}
