package io.kubequeue.scheduler.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import io.kubequeue.scheduler.ledger.QuotaLedger;
import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.Hold;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.JobPriority;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.scheduler.model.QuotaNode;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.Resources;

/**
 * The queue manager on its own, one row per way a job moves: the placement it owns (state, group, tries, retry time,
 * hold, refusal) after each sequence of its methods, and the ledger's charge where the sequence crosses into admitted
 * and back; and whom it tells of an admission. Backoff 1s doubling to 8s.
 */
class QueueManagerTest {

    private static final Instant T0 = Instant.parse("2026-12-03T00:00:00Z");
    private static final QuotaTree TREE = new QuotaTree(List.of(
            new QuotaNode("root", null, List.of(), Resources.NONE, Resources.of("cpu", 8_000L)),
            new QuotaNode("root.a", "root", List.of("team-a"), Resources.of("cpu", 2_000L), Resources.of("cpu", 8_000L))));

    /** What one row does to a fresh job of team-a (asks 1 cpu), and what its placement is afterwards. */
    record Row(String name, BiConsumer<QueueManager, JobEntry> steps, JobState state, String group,
               int attempts, Instant retryAt, Hold.Reason hold, boolean refused, long chargedMillicores) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Row> rows() {
        Instant later = T0.plusSeconds(5);
        return Stream.of(
                new Row("activated in the group of its namespace", (q, e) -> q.activate(e),
                        JobState.ACTIVE, "root.a", 0, null, null, false, 0),
                new Row("backed off after a try", (q, e) -> {
                    q.activate(e);
                    q.dequeue(e);
                    q.countTry(e);
                    q.backOff(e, later);
                }, JobState.BACKOFF, "root.a", 1, later, null, false, 0),
                new Row("refused: backs off, and only the expiry retries it", (q, e) -> {
                    q.activate(e);
                    q.dequeue(e);
                    q.countTry(e);
                    q.backOffRefused(e, "root.a", later);
                }, JobState.BACKOFF, "root.a", 1, later, null, true, 0),
                new Row("a refusal ends when a cycle decides it again", (q, e) -> {
                    q.activate(e);
                    q.dequeue(e);
                    q.backOffRefused(e, "root.a", later);
                    q.endRefusal(e);
                    q.endBackoff(e, true);
                }, JobState.ACTIVE, "root.a", 0, null, null, false, 0),
                new Row("held, saying why", (q, e) -> q.hold(e, Hold.Reason.NEVER_FITS, "asks more than max"),
                        JobState.HELD, null, 0, null, Hold.Reason.NEVER_FITS, false, 0),
                new Row("admitted after a hold (started by hand): no hold, charged", (q, e) -> {
                    q.hold(e, Hold.Reason.NEVER_FITS, "asks more than max");
                    q.dequeue(e);
                    q.admit(e, new AdmissionRecord("root.a", "t1"), false);
                }, JobState.ADMITTED, "root.a", 0, null, null, false, 1_000),
                new Row("admitted below a floor: charged the floor", (q, e) -> q.admit(e,
                        new AdmissionRecord("root.a", "t1"), false, Resources.of("cpu", 3_000L)),
                        JobState.ADMITTED, "root.a", 0, null, null, false, 3_000),
                new Row("released: in no state, charge gone", (q, e) -> {
                    q.admit(e, new AdmissionRecord("root.a", "t1"), false);
                    q.release(e, false);
                }, null, null, 0, null, null, false, 0),
                new Row("suspended again after it ran: queues anew, its tries start over", (q, e) -> {
                    q.countTry(e);
                    q.countTry(e);
                    q.admit(e, new AdmissionRecord("root.a", "t1"), false);
                    q.release(e, true);
                    q.queueAgain(e, e.job, later);
                }, JobState.ACTIVE, "root.a", 0, null, null, false, 0));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void eachWayAJobMovesLeavesItsPlacementAsStated(Row row) {
        QueueParts core = QueueParts.on(TREE, T0, Duration.ofSeconds(8));
        QuotaLedger ledger = core.ledger();
        QueueManager queues = core.queues();
        JobEntry entry = queues.newEntry(new JobObservation(new JobKey("Job", "team-a", "j"), "uid-j",
                JobObservation.Phase.QUEUED, Resources.of("cpu", 1_000L), JobPriority.NONE, T0, null, true, null));

        row.steps().accept(queues, entry);

        assertEquals(row.state(), entry.state, "state");
        assertEquals(row.group(), entry.currentGroup(), "group");
        assertEquals(row.attempts(), entry.attempts(), "tries");
        assertEquals(row.retryAt(), entry.retryAt(), "retry time");
        assertEquals(row.hold(), entry.hold() == null ? null : entry.hold().kind(), "hold");
        assertEquals(row.refused(), entry.refused, "refused");
        assertEquals(row.chargedMillicores(), ledger.usage("root.a").get("cpu"), "charged");
    }

    /**
     * The parts that keep state per admission hear of each one from the queue, in the order given: after the charge is
     * on (an admission listener reads the record it runs under) and after it is off (a release).
     */
    @org.junit.jupiter.api.Test
    void theAdmissionListenersAreToldInOrderOnceTheChargeIsOnAndOnceItIsOff() {
        QueueParts core = QueueParts.on(TREE, T0, Duration.ofSeconds(8));
        QueueManager queues = core.queues();
        List<String> heard = new java.util.ArrayList<>();
        queues.reportAdmissionsTo(recorder("first", heard), recorder("second", heard));
        JobEntry entry = queues.newEntry(new JobObservation(new JobKey("Job", "team-a", "j"), "uid-j",
                JobObservation.Phase.QUEUED, Resources.of("cpu", 1_000L), JobPriority.NONE, T0, null, true, null));
        AdmissionRecord record = new AdmissionRecord("root.a", T0.toString());

        queues.admit(entry, record, false);
        assertEquals(List.of("first admitted under " + record + ", 1000m charged",
                "second admitted under " + record + ", 1000m charged"), heard);

        heard.clear();
        queues.release(entry, false);
        assertEquals(List.of("first released under null, 0m charged", "second released under null, 0m charged"),
                heard);
        assertNull(entry.state, "released: in no state until the caller places it");
    }

    private static AdmissionListener recorder(String name, List<String> heard) {
        return new AdmissionListener() {
            @Override
            public void admitted(JobEntry entry) {
                heard.add(name + " admitted under " + entry.record() + ", " + entry.charged().get("cpu") + "m charged");
            }

            @Override
            public void released(JobEntry entry) {
                heard.add(name + " released under " + entry.record() + ", " + entry.charged().get("cpu") + "m charged");
            }
        };
    }

    /** Initial, doubled per try, capped at max. */
    @ParameterizedTest(name = "{0} tries: {1}s")
    @org.junit.jupiter.params.provider.CsvSource({"0, 1", "1, 1", "2, 2", "3, 4", "4, 8", "5, 8", "100, 8"})
    void theBackoffDoublesPerTryUpToMax(int attempts, long seconds) {
        QueueManager queues = QueueParts.on(TREE, T0, Duration.ofSeconds(8)).queues();
        assertEquals(Duration.ofSeconds(seconds), queues.backoffFor(attempts));
    }
}
