package io.kubequeue.admission;

import static io.kubequeue.admission.FakeJobRequests.fails;
import static io.kubequeue.admission.FakeJobRequests.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.kubequeue.job.Annotations;
import io.kubequeue.job.JobDirectory;
import io.kubequeue.job.batch.BatchJobKind;
import io.kubequeue.job.kubeflow.TFJob;
import io.kubequeue.job.kubeflow.TFJobKind;
import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.Eviction;
import io.kubequeue.scheduler.model.EvictionMarks;
import io.kubequeue.scheduler.model.EvictionOutcome;
import io.kubequeue.scheduler.EvictionSettling;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.testing.TrustedRecords;
import io.kubequeue.testing.Parse;
import io.kubequeue.testing.RecordingEvents;

/**
 * Each way an eviction can end, one API-server answer at a time (no Quarkus, no API server): {@link Evicter#evict}
 * over scripted answers ({@link FakeJobRequests}), then {@link Evicter#report}, which must settle each eviction with
 * the scheduler exactly once (recorded here through the evicter's seam to the core) and write its event.
 */
class EvicterOutcomesTest {

    private static final JobKey KEY = new JobKey("Job", "team-b", "etl-7");
    private static final JobKey PREEMPTOR = new JobKey("TFJob", "team-a", "train-1");
    private static final String UID = "u";
    private static final AdmissionRecord RECORD = new AdmissionRecord("root.b", "2026-01-01T00:00:00.000Z");
    private static final Instant AT = Instant.parse("2026-01-01T00:10:00Z");

    /** One call to the core's settleEviction. */
    private record Settled(JobKey key, AdmissionRecord record, EvictionOutcome outcome) {
    }

    private final RecordingEvents events = new RecordingEvents();
    private final JobDirectory directory = new JobDirectory();
    private final FakeJobRequests requests = new FakeJobRequests();
    private final List<Settled> settled = new CopyOnWriteArrayList<>();
    private final List<JobKey> podsRan = new CopyOnWriteArrayList<>();
    private volatile boolean unsettled = true;
    private Evicter evicter;

    @BeforeEach
    void setUp() {
        evicter = new Evicter(requests, new EvictionSettling() {
            @Override
            public void settleEviction(JobKey key, AdmissionRecord record, EvictionOutcome outcome) {
                settled.add(new Settled(key, record, outcome));
            }

            @Override
            public boolean evictionUnsettled(JobKey key, AdmissionRecord record) {
                return unsettled;
            }

            @Override
            public void podRan(JobKey key) {
                podsRan.add(key);
            }
        }, directory, events, TrustedRecords.signatures());
        Job running = running("1");
        directory.put(KEY, JobDirectory.Entry.of(new BatchJobKind(), running, List.of()));
    }

    @AfterEach
    void noUnscriptedRequests() {
        assertEquals(List.of(), requests.unscripted());
    }

    /** The victim running under {@link #RECORD} (spec.suspend false) at that version. */
    private static Job running(String resourceVersion) {
        Map<String, String> annotations = new HashMap<>(Map.of(Annotations.QUOTA_GROUP, RECORD.group(),
                Annotations.ADMITTED_AT, RECORD.admittedAt()));
        return new JobBuilder().withNewMetadata().withName(KEY.name()).withNamespace(KEY.namespace()).withUid(UID)
                .withResourceVersion(resourceVersion).withAnnotations(annotations).endMetadata()
                .withNewSpec().withSuspend(false).endSpec().build();
    }

    /** The victim as an eviction for that reason leaves it: suspended, the record kept, the reason written. */
    private static Job evicted(String resourceVersion, String reason) {
        Job job = new JobBuilder(running(resourceVersion)).editSpec().withSuspend(true).endSpec().build();
        job.getMetadata().getAnnotations().put(Annotations.EVICTED, reason);
        return job;
    }

    private static Eviction reclaim() {
        return new Eviction(KEY, UID, RECORD, Eviction.Reason.RECLAIM, PREEMPTOR, "root.a", Resources.of("cpu", 2000L),
                AT, new EvictionMarks(Eviction.Reason.RECLAIM, PREEMPTOR, List.of(AT), List.of()));
    }

    private static Eviction timeout() {
        return new Eviction(KEY, UID, RECORD, Eviction.Reason.TIMEOUT, null, null, Resources.of("cpu", 2000L), AT,
                new EvictionMarks(Eviction.Reason.TIMEOUT, null, List.of(), List.of(AT)));
    }

    /** Sends the eviction and reports what it found, as the admission loop does. */
    private EvictionOutcome evictAndReport(Eviction eviction) {
        return evicter.report(eviction, evicter.evict(eviction).join());
    }

    private void settledOnceAs(EvictionOutcome outcome) {
        assertEquals(List.of(new Settled(KEY, RECORD, outcome)), settled);
    }

    @Test
    void anAppliedReclaimSettlesAppliedAndTellsTheVictimWhoReclaimsWhat() {
        requests.answerPatch(ok(evicted("2", "reclaim")));

        assertEquals(new EvictionOutcome.Applied("2"), evictAndReport(reclaim()));

        settledOnceAs(new EvictionOutcome.Applied("2"));
        FakeJobRequests.Patch patch = requests.patches().get(0);
        assertEquals(UID, patch.value("test", "/metadata/uid").asText());
        assertEquals(RECORD.admittedAt(), patch.value("test", "/metadata/annotations/kube-queue~1admitted-at").asText());
        assertEquals(true, patch.value("add", "/spec/suspend").asBoolean());
        List<RecordingEvents.Event> reclaimed = events.withReason("Reclaimed");
        assertEquals(1, reclaimed.size());
        assertEquals("Warning", reclaimed.get(0).type());
        assertEquals(KEY.name(), reclaimed.get(0).name());
        // issue 25, sequence 6: the victim's namespace may not see the preemptor, another team's job
        assertEquals("suspended again to make room for a job in quota group root.a, which reclaims the min of quota"
                + " group root.a; requeued at its old position", reclaimed.get(0).message());
        assertEquals(List.of(), requests.gets(), "a plain success needs no read-back");
    }

    @Test
    void anAppliedTimeoutSaysItTimedOut() {
        requests.answerPatch(ok(evicted("2", "timeout")));

        assertEquals(new EvictionOutcome.Applied("2"), evictAndReport(timeout()));

        settledOnceAs(new EvictionOutcome.Applied("2"));
        assertEquals("timeout", requests.patches().get(0)
                .value("add", "/metadata/annotations/kube-queue~1evicted").asText());
        List<RecordingEvents.Event> timedOut = events.withReason("AdmissionTimedOut");
        assertEquals(1, timedOut.size());
        assertEquals("Warning", timedOut.get(0).type());
        assertEquals("admitted 10m ago but no pod of it ran: admission timed out; suspended again, requeued with"
                + " backoff, quota released", timedOut.get(0).message());
    }

    @Test
    void aTimeoutSaysHowLongAgoTheJobWasAdmitted_orNothingWhenItsRecordHasNoTime() {
        Eviction late = new Eviction(KEY, UID, RECORD, Eviction.Reason.TIMEOUT, null, null, Resources.NONE,
                Instant.parse("2026-01-01T01:05:30Z"), new EvictionMarks(Eviction.Reason.TIMEOUT, null, List.of(),
                List.of(AT, Instant.parse("2026-01-01T01:05:30Z"))));
        assertEquals("admitted 1h5m30s ago but no pod of it ran: admission timed out; suspended again, requeued with"
                + " backoff, quota released (2 times in the last hour)", Evicter.message(late));
        Eviction startedOutside = new Eviction(KEY, UID, new AdmissionRecord("root.b", AdmissionRecord.STARTED_OUTSIDE),
                Eviction.Reason.TIMEOUT, null, null, Resources.NONE, AT, timeout().history());
        assertEquals("admitted but no pod of it ran: admission timed out; suspended again, requeued with backoff,"
                + " quota released", Evicter.message(startedOutside));
    }

    @Test
    void aJobGoneByThePatchIsGoneWithoutAReadBack() {
        requests.answerPatch(fails(404));

        assertEquals(EvictionOutcome.GONE, evictAndReport(reclaim()));

        settledOnceAs(EvictionOutcome.GONE);
        assertEquals(List.of(), requests.gets());
        assertEquals(List.of(), events.events());
    }

    @Test
    void aConflictReadBackSuspendedWithThisReasonIsApplied_anotherLeaderWroteIt() {
        requests.answerPatch(fails(409)).answerGet(ok(evicted("5", "reclaim")));

        assertEquals(new EvictionOutcome.Applied("5"), evictAndReport(reclaim()));

        settledOnceAs(new EvictionOutcome.Applied("5"));
        assertEquals(List.of(KEY), requests.gets(), "read back once");
        assertEquals(1, events.withReason("Reclaimed").size());
    }

    @Test
    void aRefusalReadBackRunningUnderItsRecordIsRefused() {
        requests.answerPatch(fails(422)).answerGet(ok(running("3")));

        assertEquals(EvictionOutcome.REFUSED, evictAndReport(reclaim()));

        settledOnceAs(EvictionOutcome.REFUSED);
        assertEquals(List.of(), events.events(), "nothing happened to the job");
    }

    @Test
    void aRefusalReadBackSuspendedBySomeoneElseIsRefused() {
        Job suspendedByItsUser = new JobBuilder(running("3")).editSpec().withSuspend(true).endSpec().build();
        requests.answerPatch(fails(422)).answerGet(ok(suspendedByItsUser));

        assertEquals(EvictionOutcome.REFUSED, evictAndReport(reclaim()));
        settledOnceAs(EvictionOutcome.REFUSED);
    }

    @Test
    void aReadBackOfAnotherObjectOrNoneIsGone() {
        Job namesake = new JobBuilder(running("3")).editMetadata().withUid("other").endMetadata().build();
        requests.answerPatch(fails(422)).answerGet(ok(namesake));
        assertEquals(EvictionOutcome.GONE, evictAndReport(reclaim()));

        requests.answerPatch(fails(500)).answerGet(ok(null)); // AsyncJobRequests reads a 404 as null
        assertEquals(EvictionOutcome.GONE, evictAndReport(reclaim()));
        assertEquals(List.of(new Settled(KEY, RECORD, EvictionOutcome.GONE), new Settled(KEY, RECORD, EvictionOutcome.GONE)),
                settled);
    }

    @Test
    void aDecisionForAJobDeletedAndCreatedAgainIsGoneWithoutAWrite() {
        Job namesake = new JobBuilder(running("4")).editMetadata().withUid("other").endMetadata().build();
        directory.put(KEY, JobDirectory.Entry.of(new BatchJobKind(), namesake, List.of()));

        assertEquals(EvictionOutcome.GONE, evictAndReport(reclaim()));
        settledOnceAs(EvictionOutcome.GONE);
        assertEquals(List.of(), requests.patches());
    }

    @Test
    void aRefusalWhoseReadBackFailsIsRefused_theWriteDidNotApply() {
        requests.answerPatch(fails(403)).answerGet(fails(500));

        assertEquals(EvictionOutcome.REFUSED, evictAndReport(reclaim()));
        settledOnceAs(EvictionOutcome.REFUSED);
    }

    @Test
    void anAnswerAndReadBackBothLostAreUnknownUntilARecheckFindsOut() {
        requests.answerPatch(fails(500)).answerGet(fails(503));

        assertEquals(EvictionOutcome.UNKNOWN, evictAndReport(reclaim()));
        settledOnceAs(EvictionOutcome.UNKNOWN);
        assertEquals(List.of(), events.events());

        requests.answerGet(ok(evicted("6", "reclaim")));
        EvictionOutcome rechecked = evicter.recheck(reclaim()).join();
        assertEquals(new EvictionOutcome.Applied("6"), rechecked);
        evicter.report(reclaim(), rechecked);
        assertEquals(new Settled(KEY, RECORD, new EvictionOutcome.Applied("6")), settled.get(1));
        assertEquals(1, events.withReason("Reclaimed").size());

        unsettled = false; // the scheduler settled it (e.g. the informer showed the job suspended)
        assertNull(evicter.recheck(reclaim()).join());
        assertEquals(2, requests.gets().size(), "no read once settled");
        assertEquals(1, requests.patches().size(), "never written again");
    }

    @Test
    void aTimeoutOfAJobWhosePodRunsIsRefusedWithoutAWrite_andTheSchedulerToldThePodRan() {
        evicter.podRuns(KEY::equals);

        assertEquals(EvictionOutcome.REFUSED, evictAndReport(timeout()));

        settledOnceAs(EvictionOutcome.REFUSED);
        assertEquals(List.of(KEY), podsRan);
        assertEquals(List.of(), requests.patches());

        requests.answerPatch(ok(evicted("2", "reclaim")));
        settled.clear();
        assertEquals(new EvictionOutcome.Applied("2"), evictAndReport(reclaim()), "a reclaim does not ask");
        assertEquals(List.of(KEY), podsRan);
    }

    @Test
    void aJobThatSuspendingWouldNotStopIsRefusedWithoutAWrite() {
        TFJobKind tf = new TFJobKind(Parse.client());
        TFJob annotationOnly = (TFJob) Parse.yaml("""
                apiVersion: kubeflow.org/v1
                kind: TFJob
                metadata: {name: etl-7, namespace: team-b, uid: u}
                spec: {tfReplicaSpecs: {Worker: {template: {spec: {containers: [{name: c, image: x}]}}}}}
                """).get(0);
        directory.put(KEY, JobDirectory.Entry.of(tf, annotationOnly, List.of()));

        assertEquals(EvictionOutcome.REFUSED, evictAndReport(reclaim()));

        settledOnceAs(EvictionOutcome.REFUSED);
        assertEquals(List.of(), requests.patches());
    }
}
