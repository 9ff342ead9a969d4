package io.kubequeue.bench;

/**
 * The API writes the embedded server received over a window of one run (first submission to the end of the run),
 * by client and kind, and what its write budget did meanwhile.
 *
 * @param tally     writes by client and kind
 * @param budget    the budget's slots and waits over the window, or null when the server has no budget; its
 *                  {@code longestWaitNanos} is over the server's whole life (one run), not the window
 * @param writeRate the budget, writes a second; 0 when there is none
 */
record WriteFigures(WriteCounts.Tally tally, WriteBudget.Figures budget, int writeRate) {

    /** The figures between {@code earlier} and these (of the same server). */
    WriteFigures since(WriteFigures earlier) {
        WriteBudget.Figures b = budget == null || earlier.budget == null ? budget : new WriteBudget.Figures(
                budget.taken() - earlier.budget.taken(), budget.held() - earlier.budget.held(),
                budget.waitedNanos() - earlier.budget.waitedNanos(), budget.longestWaitNanos());
        return new WriteFigures(tally.since(earlier.tally), b, writeRate);
    }

    /** A client's writes ÷ {@code admissions}; NaN without admissions. */
    double perAdmission(String client, long admissions) {
        return admissions <= 0 ? Double.NaN : (double) tally.of(client) / admissions;
    }
}
