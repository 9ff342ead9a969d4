package io.kubequeue.admission;

import static io.kubequeue.admission.FakeJobRequests.fails;
import static io.kubequeue.admission.FakeJobRequests.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.kubequeue.job.Annotations;
import io.kubequeue.job.FeedEffects;
import io.kubequeue.job.JobDirectory;
import io.kubequeue.job.JobFeed;
import io.kubequeue.job.RecordSignatures;
import io.kubequeue.job.batch.BatchJobKind;
import io.kubequeue.scheduler.MutableClock;
import io.kubequeue.scheduler.Scheduler;
import io.kubequeue.scheduler.model.Admission;
import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.scheduler.model.JobStatus;
import io.kubequeue.scheduler.model.QuotaNode;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.scheduler.model.SchedulerSettings;
import io.kubequeue.testing.RecordingEvents;
import io.kubequeue.testing.TestConfig;
import io.kubequeue.testing.TrustedRecords;

/**
 * Each way an admission can end, one API-server answer at a time (no Quarkus, no API server): {@link Admitter#admit}
 * over scripted answers ({@link FakeJobRequests}), then {@link Admitter#report} to a real scheduler, which a real
 * {@link JobFeed} fed the job. Checks the settlement the answer leads to and what the scheduler holds after it.
 */
class AdmitterOutcomesTest {

    private static final JobKey KEY = new JobKey("Job", "ns", "j");
    private static final String UID = "u";
    private static final long CPU = 1000L;

    private final BatchJobKind kind = new BatchJobKind();
    private final RecordingEvents events = new RecordingEvents();
    private final JobDirectory directory = new JobDirectory();
    private final FakeJobRequests requests = new FakeJobRequests();
    private final List<JobFeed.StartedOutside> recordsAskedFor = new ArrayList<>();
    /** Where the feed's started-outside charges go: nowhere until a test says. */
    private java.util.function.Consumer<JobFeed.StartedOutside> feedStartedOutside = started -> {
    };
    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    private Scheduler scheduler;
    private JobFeed feed;
    private Admitter admitter;
    /** The version the last decision was made on: a read showing it means the job did not change since. */
    private volatile String decidedAt;

    @BeforeEach
    void setUp() {
        scheduler = new Scheduler(SchedulerSettings.defaults(), clock);
        scheduler.replaceTree(new QuotaTree(List.of(
                new QuotaNode("g", null, List.of("ns"), null, Resources.of("cpu", 4000L)),
                new QuotaNode("h", null, List.of("other"), null, Resources.of("cpu", 4000L)))));
        feed = new JobFeed(scheduler, directory, events, TestConfig.defaults(), TrustedRecords.signatures(),
                new FeedEffects() {
                    @Override
                    public void startedOutside(JobFeed.StartedOutside started) {
                        feedStartedOutside.accept(started);
                    }
                });
        // a batch Job is never a Kubeflow job: the Queuing condition writer is never reached
        admitter = new Admitter(requests, scheduler, directory, events, null, TrustedRecords.signatures());
    }

    @AfterEach
    void noUnscriptedRequests() {
        assertEquals(List.of(), requests.unscripted());
    }

    /** The job as the feed sees it: suspended (spec.suspend), 1 cpu, no annotations. */
    private static Job suspended(String resourceVersion) {
        return new JobBuilder().withNewMetadata().withName(KEY.name()).withNamespace(KEY.namespace()).withUid(UID)
                .withResourceVersion(resourceVersion).withCreationTimestamp("2026-01-01T00:00:00Z").endMetadata()
                .withNewSpec().withSuspend(true).withNewTemplate().withNewSpec().addNewContainer().withName("c")
                .withNewResources().addToRequests("cpu", new Quantity("1")).endResources().endContainer().endSpec()
                .endTemplate().endSpec().build();
    }

    /** The same job running (spec.suspend false), with this admission record on it, signed (none if null). */
    private static Job running(String resourceVersion, AdmissionRecord record) {
        Job job = new JobBuilder(suspended(resourceVersion)).editSpec().withSuspend(false).endSpec().build();
        if (record != null) {
            Map<String, String> annotations = new HashMap<>();
            annotations.put(Annotations.QUOTA_GROUP, record.group());
            annotations.put(Annotations.ADMITTED_AT, record.admittedAt());
            job.getMetadata().setAnnotations(TrustedRecords.signed(job.getMetadata().getUid(), annotations));
        }
        return job;
    }

    /** Queues the job through the feed and has the scheduler decide its admission (already charged). */
    private Admission decide() {
        return decide("1");
    }

    /** The same, with the job seen at that version. */
    private Admission decide(String resourceVersion) {
        decidedAt = resourceVersion;
        feed.observe(kind, suspended(resourceVersion));
        List<Admission> admissions = scheduler.schedule().admissions();
        assertEquals(1, admissions.size(), "the job fits: one admission");
        assertEquals(CPU, scheduler.usage("g").get("cpu"), "charged as decided");
        return admissions.get(0);
    }

    private Admitter.Settlement admit(Admission admission) {
        return admitter.admit(admission).join();
    }

    private void report(Admission admission, Admitter.Settlement settlement) {
        admitter.report(admission, settlement, recordsAskedFor::add);
    }

    private JobStatus status() {
        return scheduler.status(KEY).orElseThrow();
    }

    @Test
    void anAppliedPatchAdmitsTheJobWithOneAdmittedEvent() {
        Admission admission = decide();
        requests.answerPatch(ok(running("2", admission.record())));

        Admitter.Settlement settlement = admit(admission);
        assertEquals(Admitter.Settlement.Kind.APPLIED, settlement.kind());
        assertEquals("2", settlement.resourceVersion());
        report(admission, settlement);

        assertEquals(JobState.ADMITTED, status().state());
        assertEquals(admission.record(), status().record());
        assertEquals(CPU, scheduler.usage("g").get("cpu"));
        assertFalse(scheduler.admissionUnsettled(KEY, admission.record()));
        List<RecordingEvents.Event> admitted = events.withReason("Admitted");
        assertEquals(1, admitted.size());
        assertEquals("Normal", admitted.get(0).type());
        assertTrue(admitted.get(0).message().startsWith("admitted into quota group g"), admitted.get(0).message());
        assertEquals(List.of(), requests.gets(), "a plain success needs no read-back");
    }

    @Test
    void thePatchTestsTheUidAndTheMarkThenRemovesTheMarkAndWritesTheRecord() {
        Admission admission = decide();
        requests.answerPatch(ok(running("2", admission.record())));
        admit(admission);

        assertEquals(1, requests.patches().size());
        FakeJobRequests.Patch patch = requests.patches().get(0);
        assertEquals(KEY, patch.key());
        assertEquals(Job.class, patch.type());
        assertEquals(UID, patch.value("test", "/metadata/uid").asText());
        assertTrue(patch.value("test", "/spec/suspend").asBoolean(), "tests the mark is still set");
        assertTrue(patch.value("replace", "/spec/suspend").isBoolean());
        assertFalse(patch.value("replace", "/spec/suspend").asBoolean(), "then lifts it");
        assertEquals("1", patch.value("test", "/metadata/resourceVersion").asText(),
                "no annotations seen: the whole map is added, bound to the version seen");
        assertEquals(admission.record(), patch.record());
        List<String> order = patch.ops().stream().map(op -> op.path("op").asText() + " " + op.path("path").asText())
                .toList();
        assertTrue(order.indexOf("test /spec/suspend") < order.indexOf("replace /spec/suspend"),
                "the test comes before the change it guards: " + order);
    }

    /** Signing costs no request: the one admission patch carries the signed set, which verifies on the job. */
    @Test
    void oneAdmissionIsOnePatchAndWhatItWritesIsSignedForThisJob() {
        Admission admission = decide();
        requests.answerPatch(ok(running("2", admission.record())));
        admit(admission);

        assertEquals(1, requests.patches().size(), "one write per admission");
        JsonNode map = requests.patches().get(0).value("add", "/metadata/annotations");
        Map<String, String> written = new HashMap<>();
        map.fields().forEachRemaining(e -> written.put(e.getKey(), e.getValue().asText()));
        RecordSignatures.Reading read = TrustedRecords.signatures().read(UID, written);
        assertEquals(RecordSignatures.Trust.TRUSTED, read.trust(), written.toString());
        assertEquals(admission.record(), read.record());
        assertEquals(RecordSignatures.Trust.MISMATCHED, TrustedRecords.signatures().read("another-uid", written).trust());
    }

    /**
     * A running job with a hand-written record: one patch writes kube-queue's own signed started-outside record over
     * it, and the job's one Warning is the feed's UntrustedRecord (no StartedOutsideQueue besides).
     */
    @Test
    void aHandWrittenRecordCostsOnePatchAndOneWarning() {
        Job forged = running("1", null);
        forged.getMetadata().setAnnotations(new HashMap<>(Map.of(Annotations.QUOTA_GROUP, "h",
                Annotations.ADMITTED_AT, "2026-01-01T00:00:00.000Z")));
        feedStartedOutside = recordsAskedFor::add;
        feed.observe(kind, forged);
        assertEquals("g", status().group(), "its own group, not the one it names");
        assertEquals(1, recordsAskedFor.size());
        requests.answerPatch(ok(forged));

        admitter.recordStartedOutside(recordsAskedFor.get(0));

        assertEquals(1, requests.patches().size());
        FakeJobRequests.Patch patch = requests.patches().get(0);
        Map<String, String> written = new HashMap<>();
        List<String> keys = new java.util.ArrayList<>(io.kubequeue.job.RecordFields.KEYS);
        keys.add(Annotations.RECORD_SIGNATURE);
        for (String key : keys) {
            written.put(key, patch.value("add", "/metadata/annotations/" + key.replace("/", "~1")).asText());
        }
        assertEquals(new AdmissionRecord("g", AdmissionRecord.STARTED_OUTSIDE),
                TrustedRecords.signatures().read(UID, written).record(), "kube-queue's own record, signed");
        assertEquals(List.of("UntrustedRecord"), events.events().stream().filter(e -> e.type().equals("Warning"))
                .map(RecordingEvents.Event::reason).toList());
    }

    @Test
    void aRefusedPatchHandsTheChargeBackAndTheJobBacksOff() {
        Admission admission = decide();
        // refused although the job did not change (a validating webhook, say): read back at the version decided on
        requests.answerPatch(fails(409)).answerGet(ok(suspended("1")));

        Admitter.Settlement settlement = admit(admission);
        assertEquals(Admitter.Settlement.Kind.REFUSED, settlement.kind());
        report(admission, settlement);

        assertEquals(0L, scheduler.usage("g").get("cpu"), "charge handed back");
        assertEquals(JobState.BACKOFF, status().state());
        assertEquals(1, status().attempts());
        assertEquals(List.of(KEY), requests.gets(), "a refusal is read back once");
        assertEquals(List.of(), events.withReason("Admitted"));
        assertEquals(List.of(), recordsAskedFor);
    }

    @Test
    void aJobGoneByThePatchIsForgottenWithoutAReadBack() {
        Admission admission = decide();
        requests.answerPatch(fails(404));

        Admitter.Settlement settlement = admit(admission);
        assertEquals(Admitter.Settlement.Kind.GONE, settlement.kind());
        report(admission, settlement);

        assertTrue(scheduler.status(KEY).isEmpty(), "forgotten");
        assertEquals(0L, scheduler.usage("g").get("cpu"));
        assertEquals(List.of(), requests.gets());
    }

    @Test
    void aJobGoneByTheReadBackIsForgotten() {
        Admission admission = decide();
        requests.answerPatch(fails(409)).answerGet(ok(null)); // AsyncJobRequests reads a 404 as null

        Admitter.Settlement settlement = admit(admission);
        assertEquals(Admitter.Settlement.Kind.GONE, settlement.kind());
        report(admission, settlement);

        assertTrue(scheduler.status(KEY).isEmpty(), "forgotten");
        assertEquals(0L, scheduler.usage("g").get("cpu"));
    }

    @Test
    void aJobStartedByHandMeanwhileStaysChargedAsStartedOutsideAndItsRecordIsAskedForOnce() {
        Admission admission = decide();
        requests.answerPatch(fails(409)).answerGet(ok(running("3", null)));

        Admitter.Settlement settlement = admit(admission);
        assertEquals(Admitter.Settlement.Kind.STARTED_BY_HAND, settlement.kind());
        assertEquals("3", settlement.resourceVersion());
        report(admission, settlement);

        assertEquals(JobState.ADMITTED, status().state());
        assertTrue(status().record().startedOutside(), "re-labelled as started outside: " + status().record());
        assertEquals("g", status().record().group());
        assertEquals(CPU, scheduler.usage("g").get("cpu"), "the charge stays");
        assertEquals(1, recordsAskedFor.size());
        JobFeed.StartedOutside asked = recordsAskedFor.get(0);
        assertEquals(KEY, asked.charge().key());
        assertEquals(UID, asked.charge().uid());
        assertEquals(status().record(), asked.charge().record());
        assertEquals("its suspend mark was removed by hand", asked.how());
        assertEquals(List.of(), events.withReason("Admitted"));
    }

    @Test
    void aJobAdmittedByAnotherReplicaMeanwhileIsChargedToThatReplicasRecord() {
        Admission admission = decide();
        AdmissionRecord theirs = new AdmissionRecord("h", "2025-12-31T23:59:59.000Z");
        requests.answerPatch(fails(409)).answerGet(ok(running("4", theirs)));

        Admitter.Settlement settlement = admit(admission);
        assertEquals(Admitter.Settlement.Kind.TAKEN_OVER, settlement.kind());
        assertEquals(theirs, settlement.found());
        report(admission, settlement);

        assertEquals(JobState.ADMITTED, status().state());
        assertEquals(theirs, status().record());
        assertEquals(CPU, scheduler.usage("h").get("cpu"), "charged where the other replica's record says");
        assertEquals(0L, scheduler.usage("g").get("cpu"), "and no longer where we decided");
        assertEquals(List.of(), recordsAskedFor);
    }

    /**
     * Issue 25 review: the job ran under kube-queue's record, was suspended again (the record stays on it) and is
     * admitted anew; its tenant removes the mark meanwhile, so the patch is refused and the read-back finds the old
     * record, which verifies. It is spent, not another replica's: the job was started by hand, is charged as started
     * outside and gets kube-queue's record. Read as another replica's admission, it counted in full above its group.
     */
    @Test
    void aReadBackThatFindsTheJobsSpentRecordIsAJobStartedByHand() {
        Admission first = decide();
        requests.answerPatch(ok(running("2", first.record())));
        report(first, admit(first));
        feed.observe(kind, running("2", first.record()));
        Job suspendedAgain = running("3", first.record());
        suspendedAgain.getSpec().setSuspend(true);
        feed.observe(kind, suspendedAgain);
        clock.advance(java.time.Duration.ofMinutes(1));
        List<Admission> again = scheduler.schedule().admissions();
        assertEquals(1, again.size());
        requests.answerPatch(fails(409)).answerGet(ok(running("4", first.record())));

        Admitter.Settlement settlement = admit(again.get(0));
        assertEquals(Admitter.Settlement.Kind.TAKEN_OVER, settlement.kind());
        report(again.get(0), settlement);

        assertTrue(status().record().startedOutside(), "started by hand under its spent record: " + status().record());
        assertEquals(1, recordsAskedFor.size(), "kube-queue's started-outside record is asked for");
        assertEquals(status().record(), recordsAskedFor.get(0).charge().record());
    }

    @Test
    void anAnswerAndReadBackBothLostLeaveTheChargeUntilARecheckConfirmsIt() {
        Admission admission = decide();
        requests.answerPatch(fails(500)).answerGet(fails(500));

        Admitter.Settlement settlement = admit(admission);
        assertEquals(Admitter.Settlement.Kind.UNCONFIRMED, settlement.kind());
        report(admission, settlement);

        assertEquals(JobState.ADMITTED, status().state());
        assertEquals(CPU, scheduler.usage("g").get("cpu"), "the charge stays while unknown");
        assertTrue(scheduler.admissionUnsettled(KEY, admission.record()));

        requests.answerGet(ok(running("5", admission.record())));
        Admitter.Settlement rechecked = admitter.recheck(admission).join();
        assertEquals(Admitter.Settlement.Kind.APPLIED, rechecked.kind());
        assertEquals("5", rechecked.resourceVersion());
        report(admission, rechecked);

        assertFalse(scheduler.admissionUnsettled(KEY, admission.record()), "settled");
        assertEquals(JobState.ADMITTED, status().state());
        assertEquals(admission.record(), status().record());
        assertEquals(CPU, scheduler.usage("g").get("cpu"));
        assertNull(admitter.recheck(admission).join(), "settled: nothing more to read");
        assertEquals(2, requests.gets().size(), "no read once settled");
        assertEquals(1, requests.patches().size(), "never patched again");
    }

    @Test
    void theThirdRefusalInARowWithTheSameCodeGivesOneWarning() {
        assertEquals(3, Admitter.REFUSALS_BEFORE_WARNING, "the codes below assume three");
        requests.answerGets(key -> ok(suspended(decidedAt))); // refused, the job unchanged
        // 409, 409, then 422: a new streak; 422 three times: the warning; a fourth: no second warning
        List<Integer> codes = List.of(409, 409, 422, 422, 422, 422);
        List<Integer> warningsAfter = new ArrayList<>();
        for (int code : codes) {
            Admission admission = decide();
            requests.answerPatch(fails(code));
            Admitter.Settlement settlement = admit(admission);
            assertEquals(Admitter.Settlement.Kind.REFUSED, settlement.kind());
            report(admission, settlement);
            warningsAfter.add(events.withReason("AdmissionRefused").size());
            clock.advance(Duration.ofMinutes(1)); // past any backoff: the next cycle admits it again
        }

        assertEquals(List.of(0, 0, 0, 0, 1, 1), warningsAfter);
        RecordingEvents.Event warning = events.withReason("AdmissionRefused").get(0);
        assertEquals("Warning", warning.type());
        assertEquals(KEY.name(), warning.name());
        assertTrue(warning.message().contains("3 times in a row (HTTP 422: scripted failure 422)"), warning.message());
    }

    @Test
    void anAppliedAdmissionEndsTheRefusalStreak() {
        requests.answerGets(key -> ok(suspended(decidedAt))); // refused, the job unchanged
        for (int i = 0; i < Admitter.REFUSALS_BEFORE_WARNING - 1; i++) {
            Admission admission = decide();
            requests.answerPatch(fails(409));
            report(admission, admit(admission));
            clock.advance(Duration.ofMinutes(1));
        }
        Admission admission = decide();
        requests.answerPatch(ok(running("3", admission.record())));
        report(admission, admit(admission));
        feed.observe(kind, running("4", admission.record()));
        // suspended again by someone: queued again, and admitted again
        Admission again = decide("5");
        requests.answerPatch(fails(409));
        report(again, admit(again));

        assertEquals(List.of(), events.withReason("AdmissionRefused"), "one refusal since the success");
    }

    /** The job at that version asking this much cpu, suspended. */
    private static Job suspendedAsking(String resourceVersion, String cpu) {
        Job job = suspended(resourceVersion);
        job.getSpec().getTemplate().getSpec().getContainers().get(0).getResources().getRequests()
                .put("cpu", new Quantity(cpu));
        return job;
    }

    @Test
    void thePatchTestsTheVersionTheDecisionWasMadeOn() {
        Admission admission = decide("7");
        assertEquals("7", admission.resourceVersion(), "the decision carries the version it read");
        requests.answerPatch(ok(running("8", admission.record())));

        admit(admission);

        assertEquals("7", requests.patches().get(0).value("test", "/metadata/resourceVersion").asText());
    }

    @Test
    void aJobChangedSinceTheDecisionRefusesThePatchAndIsDecidedAgainOnItsNewCopyWithoutBackoff() {
        Admission admission = decide("1");
        requests.answerPatch(fails(422)).answerGet(ok(suspendedAsking("2", "3")));

        Admitter.Settlement settlement = admit(admission);
        assertEquals(Admitter.Settlement.Kind.OUTDATED, settlement.kind());
        assertEquals("2", settlement.resourceVersion());
        report(admission, settlement);
        assertEquals(0L, scheduler.usage("g").get("cpu"), "charge handed back");
        assertEquals(JobState.BACKOFF, status().state(), "until the informer shows the change");

        feed.observe(kind, suspendedAsking("2", "3"));
        assertEquals(JobState.ACTIVE, status().state(), "the change ends the wait at once");
        List<Admission> again = scheduler.schedule().admissions();
        assertEquals(1, again.size());
        assertEquals(3000L, again.get(0).request().get("cpu"), "decided again on what it asks now");
        assertEquals("2", again.get(0).resourceVersion());
        assertEquals(List.of(), events.withReason("AdmissionRefused"));
    }

    @Test
    void anEditSeenBeforeSendingHandsTheAdmissionBackUnsentAndTheJobIsDecidedAgainAtOnce() {
        Admission admission = decide("1");
        feed.observe(kind, suspendedAsking("2", "3")); // raised while the admission waits in the pipeline

        Admitter.Settlement settlement = admit(admission);
        assertEquals(Admitter.Settlement.Kind.OUTDATED_UNSENT, settlement.kind());
        report(admission, settlement);

        assertEquals(List.of(), requests.patches(), "no write for a decision known to be stale");
        assertEquals(JobState.ACTIVE, status().state());
        assertEquals(0, status().attempts(), "not the job's fault: no attempt counted");
        List<Admission> again = scheduler.schedule().admissions();
        assertEquals(3000L, again.get(0).request().get("cpu"));
    }

    @Test
    void aWriteThatChangesNothingTheDecisionReadRebindsTheAdmissionToTheNewVersion() {
        Admission admission = decide("1");
        feed.observe(kind, suspended("2")); // e.g. the Job controller's condition Suspended=True
        requests.answerPatch(ok(running("3", admission.record())));

        Admitter.Settlement settlement = admit(admission);

        assertEquals(Admitter.Settlement.Kind.APPLIED, settlement.kind());
        assertEquals(1, requests.patches().size(), "one patch");
        assertEquals("2", requests.patches().get(0).value("test", "/metadata/resourceVersion").asText());
        assertEquals(1, admitter.rebound());
    }

    @Test
    void anAmbiguousAnswerReadBackUnchangedIsFencedByTheSamePatchBoundToTheSameVersion() {
        Admission admission = decide("1");
        requests.answerPatch(fails(504)).answerGet(ok(suspended("1")))
                .answerPatch(ok(running("2", admission.record())));

        Admitter.Settlement settlement = admit(admission);

        assertEquals(Admitter.Settlement.Kind.APPLIED, settlement.kind());
        assertEquals(2, requests.patches().size(), "the patch, then its fence");
        assertEquals(requests.patches().get(0).body(), requests.patches().get(1).body(), "the same patch");
        assertEquals(List.of(KEY), requests.gets(), "one read between them");
        assertEquals(1, admitter.fences());
    }

    @Test
    void anAmbiguousAnswerReadBackAtANewerVersionCanNeverApplyAndIsSettledWithoutAWrite() {
        Admission admission = decide("1");
        requests.answerPatch(fails(504)).answerGet(ok(suspended("2")));

        Admitter.Settlement settlement = admit(admission);

        assertEquals(Admitter.Settlement.Kind.OUTDATED, settlement.kind());
        assertEquals(1, requests.patches().size(), "no fence: the lost patch tests version 1, gone for good");
    }

    @Test
    void aLostFenceKeepsTheRoomUntilTheServersRequestTimeoutHasPassed() {
        long[] now = {0};
        admitter.nanoClock = () -> now[0];
        Admission admission = decide("1");
        requests.answerPatch(fails(504)).answerGet(ok(suspended("1"))).answerPatch(fails(0));

        Admitter.Settlement settlement = admit(admission);
        assertEquals(Admitter.Settlement.Kind.UNCONFIRMED, settlement.kind());
        report(admission, settlement);

        requests.answerGet(ok(suspended("1")));
        now[0] += Duration.ofSeconds(30).toNanos();
        Admitter.Settlement early = admitter.recheck(admission).join();
        assertEquals(Admitter.Settlement.Kind.UNCONFIRMED, early.kind(), "either patch may still apply");
        report(admission, early);
        assertEquals(CPU, scheduler.usage("g").get("cpu"), "the room stays charged");

        requests.answerGet(ok(suspended("1")));
        now[0] += Admitter.AMBIGUOUS_PATCH_LIFETIME.toNanos();
        Admitter.Settlement late = admitter.recheck(admission).join();
        assertEquals(Admitter.Settlement.Kind.REFUSED, late.kind(), "past the server's request timeout");
        report(admission, late);
        assertEquals(0L, scheduler.usage("g").get("cpu"));
        assertEquals(2, requests.patches().size(), "a re-check only reads");
    }

    @Test
    void aRefusalByAWriteThatChangesNothingTheDecisionReadIsSentAgainBoundToTheVersionRead() {
        Admission admission = decide("1");
        java.util.concurrent.CompletableFuture<HasMetadata> read = new java.util.concurrent.CompletableFuture<>();
        requests.answerPatch(fails(422)).answerGet(read).answerPatch(ok(running("3", admission.record())));

        java.util.concurrent.CompletableFuture<Admitter.Settlement> settling = admitter.admit(admission);
        // the status write (kube-queue's Queuing condition, the Job controller's Suspended) reaches the informer
        feed.observe(kind, suspended("2"));
        read.complete(suspended("2"));
        Admitter.Settlement settlement = settling.join();

        assertEquals(Admitter.Settlement.Kind.APPLIED, settlement.kind());
        assertEquals(2, requests.patches().size());
        assertEquals("2", requests.patches().get(1).value("test", "/metadata/resourceVersion").asText());
        assertEquals(1, admitter.versionRefusals());
        assertEquals(CPU, scheduler.usage("g").get("cpu"), "never handed back meanwhile");
        report(admission, settlement);
    }
}
