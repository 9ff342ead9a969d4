package io.kubequeue.scheduler.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.JobPriority;
import io.kubequeue.scheduler.model.QuotaNode;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.Resources;

/**
 * The ledger on its own, one row per case, on a tree whose min and max declare cpu, memory and GPUs (as the seed's
 * does): a job fits when, for each resource it asks, usage plus request stays within max at its group and at every
 * ancestor; a non-preemptible job must also fit its group's min, counted in non-preemptible usage only; a resource
 * a max leaves out is not limited there. Each row charges some jobs first, then asks about one more; then the charges
 * are taken off again and every group's usage must be back at nothing.
 */
class QuotaLedgerTest {

    private static final long GI = 1L << 30;
    private static final String GPU = "nvidia.com/gpu";

    /** root: 10 cpu, 40Gi, 4 GPUs; a: min 4 cpu, 16Gi, 2 GPUs; b: min 6 cpu, 24Gi, 2 GPUs; each may borrow to max. */
    private static final QuotaTree TREE = new QuotaTree(List.of(
            new QuotaNode("root", null, List.of(), Resources.NONE, amount(10_000, 40, 4)),
            new QuotaNode("root.a", "root", List.of("team-a"), amount(4_000, 16, 2), amount(10_000, 40, 4)),
            new QuotaNode("root.b", "root", List.of("team-b"), amount(6_000, 24, 2), amount(10_000, 40, 4))));

    private static Resources amount(long millicores, long gibibytes, long gpus) {
        return Resources.of("cpu", millicores, "memory", gibibytes * GI, GPU, gpus);
    }

    /** A job of a group, charged before the question or asked about. */
    record Job(String group, Resources request, boolean preemptible) {
        static Job of(String group, long millicores, long gibibytes, long gpus) {
            return new Job(group, amount(millicores, gibibytes, gpus), true);
        }

        Job guaranteed() {
            return new Job(group, request, false);
        }
    }

    record Row(String name, List<Job> charged, Job asked, boolean fits) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Row> rows() {
        Job aBorrowsCpu = Job.of("root.a", 6_000, 4, 0); // over a's min in cpu, under it in memory and GPUs
        return Stream.of(
                new Row("an empty tree has room", List.of(), Job.of("root.a", 4_000, 8, 1), true),
                new Row("the root's cpu is short though b is under its min", List.of(aBorrowsCpu),
                        Job.of("root.b", 5_000, 1, 0), false),
                new Row("up to the root's max exactly", List.of(aBorrowsCpu), Job.of("root.b", 4_000, 36, 4), true),
                new Row("one resource past the root's max is enough to be short", List.of(aBorrowsCpu),
                        Job.of("root.b", 1_000, 37, 0), false),
                new Row("GPUs are counted apart from cpu", List.of(Job.of("root.a", 0, 0, 3)),
                        Job.of("root.b", 9_000, 30, 2), false),
                new Row("a resource no max declares is not limited", List.of(aBorrowsCpu),
                        new Job("root.b", Resources.of("cpu", 1_000L, "example.com/fpga", 1_000L), true), true),
                new Row("non-preemptible: within its group's min in every resource", List.of(),
                        Job.of("root.a", 4_000, 16, 2).guaranteed(), true),
                new Row("non-preemptible: past its group's min in one resource", List.of(),
                        Job.of("root.a", 4_000, 17, 0).guaranteed(), false),
                new Row("non-preemptible: only guaranteed usage counts against the min", List.of(aBorrowsCpu),
                        Job.of("root.a", 4_000, 1, 0).guaranteed(), true),
                new Row("non-preemptible: guaranteed usage fills the min", List.of(
                        Job.of("root.a", 3_000, 0, 0).guaranteed()), Job.of("root.a", 2_000, 0, 0).guaranteed(), false),
                new Row("a preemptible job may borrow past its min", List.of(Job.of("root.a", 3_000, 0, 0).guaranteed()),
                        Job.of("root.a", 7_000, 0, 0), true));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void aJobFitsOnlyWhereEveryResourceItAsksHasRoomOnItsPath(Row row) {
        QuotaLedger ledger = new QuotaLedger();
        ledger.replaceTree(TREE, List.of());
        int n = 0;
        List<ChargedJob> charged = new java.util.ArrayList<>();
        for (Job job : row.charged()) {
            ChargedJob entry = entry(job, "charged-" + n++);
            ledger.charge(entry, new AdmissionRecord(job.group(), "2026-12-03T00:00:00Z"), false);
            charged.add(entry);
        }
        assertEquals(row.fits(), ledger.fits(row.asked().group(), entry(row.asked(), "asked")), row.name());

        Resources sum = row.charged().stream().map(Job::request).reduce(Resources.NONE, Resources::plus);
        assertEquals(row.charged().isEmpty() ? Resources.NONE : sum.with(Resources.MAX_JOBS, row.charged().size()),
                ledger.usage("root"), "the root counts every charge, with one job each");
        charged.forEach(entry -> ledger.uncharge(entry, false));
        for (String group : List.of("root", "root.a", "root.b")) {
            assertEquals(Resources.NONE, ledger.usage(group), group + " after every charge is taken off");
            assertEquals(Resources.NONE, ledger.guaranteedUsage(group), group + " after every charge is taken off");
        }
    }

    private static ChargedJob entry(Job job, String name) {
        String namespace = job.group().equals("root.a") ? "team-a" : "team-b";
        JobObservation observation = new JobObservation(new JobKey("Job", namespace, name), name,
                JobObservation.Phase.QUEUED, job.request(), JobPriority.NONE, Instant.EPOCH, null, job.preemptible(),
                null);
        return new ChargedJob(observation);
    }
}
