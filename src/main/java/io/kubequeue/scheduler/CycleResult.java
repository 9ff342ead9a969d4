package io.kubequeue.scheduler;

import java.util.List;

/**
 * What one scheduling cycle decided.
 *
 * @param admissions jobs admitted in this cycle, in the order they were admitted; already charged
 * @param holds      jobs newly held in this cycle (each hold is reported once, until its reason changes)
 * @param tried      how many jobs the cycle tried (admitted, held, or found not to fit): what it cost
 */
public record CycleResult(List<Admission> admissions, List<Hold> holds, int tried) {

    public CycleResult {
        admissions = List.copyOf(admissions);
        holds = List.copyOf(holds);
    }

    /** Whether the cycle decided nothing. */
    public boolean isEmpty() {
        return admissions.isEmpty() && holds.isEmpty();
    }
}
