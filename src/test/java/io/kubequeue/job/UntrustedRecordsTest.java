package io.kubequeue.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.kubequeue.job.batch.BatchJobKind;
import io.kubequeue.scheduler.Scheduler;
import io.kubequeue.scheduler.model.Admission;
import io.kubequeue.scheduler.model.EvictionMarks;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobObservation;
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
 * Issue 25, sequence 5: a tenant writes kube-queue's accounting by hand. An admission record or an eviction history
 * that kube-queue did not write (no signature, or one made with another key) is read as absent: a running job that
 * carries one is charged as started outside kube-queue in its own group, with one Warning event, and asked to have
 * kube-queue's own record written; a forged history neither shields a job nor makes another yield.
 */
class UntrustedRecordsTest {

    private static final Instant NOW = Instant.now();

    private final BatchJobKind kind = new BatchJobKind();
    private final RecordingEvents events = new RecordingEvents();
    private final JobDirectory directory = new JobDirectory();
    private final List<JobFeed.StartedOutside> startedOutside = new ArrayList<>();
    private final List<JobObservation> observed = new ArrayList<>();
    private Scheduler scheduler;
    private JobFeed feed;

    @BeforeEach
    void setUp() {
        scheduler = new Scheduler(SchedulerSettings.defaults(), Clock.systemUTC());
        scheduler.replaceTree(new QuotaTree(List.of(
                new QuotaNode("root", null, List.of(), null, Resources.of("cpu", 8000L)),
                new QuotaNode("team-a", "root", List.of("team-a"), null, Resources.of("cpu", 4000L)),
                new QuotaNode("team-b", "root", List.of("team-b"), null, Resources.of("cpu", 4000L)))));
        feed = new JobFeed(scheduler, directory, events, TestConfig.defaults(), TrustedRecords.signatures(),
                new FeedEffects() {
                    @Override
                    public void startedOutside(JobFeed.StartedOutside started) {
                        startedOutside.add(started);
                    }
                });
        feed.onObservation(observed::add);
    }

    private static Job job(String namespace, String name, boolean suspended, String cpu,
                           Map<String, String> annotations) {
        return new JobBuilder().withNewMetadata().withName(name).withNamespace(namespace).withUid(name + "-uid")
                .withResourceVersion("1").withCreationTimestamp("2026-01-01T00:00:00Z")
                .withAnnotations(new HashMap<>(annotations)).endMetadata()
                .withNewSpec().withSuspend(suspended).withNewTemplate().withNewSpec().addNewContainer().withName("c")
                .withNewResources().addToRequests("cpu", new Quantity(cpu)).endResources().endContainer().endSpec()
                .endTemplate().endSpec().build();
    }

    private static final Map<String, String> ROOT_RECORD = Map.of(Annotations.QUOTA_GROUP, "root",
            Annotations.ADMITTED_AT, "2026-01-01T00:00:00.000Z");

    @Test
    void aHandWrittenRecordToRootIsChargedAsStartedOutsideInTheJobsOwnGroup() {
        // team-a's whole max, claimed as root's: charged there, it would leave team-a free to admit its max again
        // and take root's room from team-b
        feed.observe(kind, job("team-a", "forged", false, "4", ROOT_RECORD));

        JobStatus status = scheduler.status(new JobKey("Job", "team-a", "forged")).orElseThrow();
        assertEquals(JobState.ADMITTED, status.state(), "it runs, so it is charged: never over-admit");
        assertEquals("team-a", status.group(), "charged where it would queue now, not where it says");
        assertTrue(status.record().startedOutside(), status.record().toString());
        assertEquals(1, startedOutside.size(), "kube-queue's own record is written on it");
        assertEquals("team-a", startedOutside.get(0).charge().record().group());
        assertTrue(startedOutside.get(0).how().contains("kube-queue did not write"), startedOutside.get(0).how());

        feed.observe(kind, job("team-a", "same-team", true, "2", Map.of()));
        feed.observe(kind, job("team-b", "other-team", true, "2", Map.of()));
        List<Admission> admitted = scheduler.schedule().admissions();
        assertEquals(List.of("other-team"), admitted.stream().map(a -> a.key().name()).toList(),
                "team-a is full with its own job; team-b keeps its room");
        assertEquals(4000, scheduler.usage("team-a").get("cpu"));
    }

    @Test
    void aRecordSignedWithAnotherKeyOrForAnotherJobIsNotTrusted() {
        Map<String, String> otherKey = TrustedRecords.signed(TrustedRecords.signatures(new byte[32]), "copied-uid",
                ROOT_RECORD);
        feed.observe(kind, job("team-a", "other-key", false, "4", otherKey));
        Map<String, String> copied = TrustedRecords.signed("another-jobs-uid", ROOT_RECORD);
        feed.observe(kind, job("team-a", "copied", false, "4", copied));

        assertEquals("team-a", scheduler.status(new JobKey("Job", "team-a", "other-key")).orElseThrow().group());
        assertEquals("team-a", scheduler.status(new JobKey("Job", "team-a", "copied")).orElseThrow().group(),
                "a record copied from another job does not hold for this one");
    }

    @Test
    void aRecordKubeQueueSignedIsTrusted() {
        feed.observe(kind, job("team-a", "ours", false, "2", TrustedRecords.signed("ours-uid", ROOT_RECORD)));

        JobStatus status = scheduler.status(new JobKey("Job", "team-a", "ours")).orElseThrow();
        assertEquals("root", status.group(), "kube-queue wrote it: charged as recorded");
        assertEquals(List.of(), startedOutside);
        assertEquals(List.of(), events.withReason("UntrustedRecord"));
    }

    @Test
    void aForgedRecordGetsOneWarningEventNamingWhatWasForged() {
        feed.observe(kind, job("team-a", "forged", false, "4", ROOT_RECORD));
        feed.observe(kind, job("team-a", "forged", false, "4", ROOT_RECORD));

        List<RecordingEvents.Event> warnings = events.withReason("UntrustedRecord");
        assertEquals(1, warnings.size(), events.events().toString());
        assertTrue(warnings.get(0).message().contains("kube-queue/quota-group"), warnings.get(0).message());
        assertTrue(warnings.get(0).message().contains("team-a"), warnings.get(0).message());
    }

    @Test
    void forgedReclaimTimesDoNotShieldARunningJob() {
        String recent = NOW.minusSeconds(300) + "," + NOW.minusSeconds(200) + "," + NOW.minusSeconds(100);
        Map<String, String> annotations = new HashMap<>(TrustedRecords.signed("shielded-uid", Map.of(
                Annotations.QUOTA_GROUP, "team-a", Annotations.ADMITTED_AT, "2026-01-01T00:00:00.000Z")));
        annotations.put(Annotations.RECLAIMED_AT, recent); // added by hand after kube-queue signed
        feed.observe(kind, job("team-a", "shielded", false, "2", annotations));

        assertEquals(EvictionMarks.NONE, last().evictions(), "the forged history reads as absent");
        assertNull(last().record(), "the set it was signed with changed: none of it is trusted");
    }

    @Test
    void aForgedPreemptorDoesNotMakeAQueuedJobYield() {
        feed.observe(kind, job("team-a", "yields", true, "2", Map.of(Annotations.EVICTED, "reclaim",
                Annotations.EVICTED_FOR, "Job/team-a/favourite", Annotations.RECLAIMED_AT, NOW.toString())));

        assertEquals(EvictionMarks.NONE, last().evictions());
        assertEquals(1, events.withReason("UntrustedRecord").size(), events.events().toString());
        assertEquals(List.of("yields"), scheduler.schedule().admissions().stream().map(a -> a.key().name()).toList(),
                "admitted as any queued job: it yields to no one");
    }

    @Test
    void anEvictionHistoryKubeQueueSignedIsRead() {
        Map<String, String> evicted = TrustedRecords.signed("evicted-uid", Map.of(Annotations.QUOTA_GROUP, "team-a",
                Annotations.ADMITTED_AT, "2026-01-01T00:00:00.000Z", Annotations.EVICTED, "reclaim",
                Annotations.EVICTED_FOR, "Job/team-a/preemptor", Annotations.RECLAIMED_AT, NOW.toString(),
                Annotations.TIMED_OUT_AT, ""));
        feed.observe(kind, job("team-a", "evicted", true, "2", evicted));

        assertEquals(new JobKey("Job", "team-a", "preemptor"), last().evictions().preemptor());
        assertEquals(List.of(), events.withReason("UntrustedRecord"));
    }

    private JobObservation last() {
        return observed.get(observed.size() - 1);
    }

    /**
     * Issue 25 review, hostile-input bounds: the values a tenant writes by hand are quoted in the UntrustedRecord
     * Warning, whose log line is the whole message (the event note alone is cut to 1 KiB). docs/security.md bounds a
     * value in messages, events and log lines, to 200 characters; a 200 KiB annotation was quoted whole, once per
     * edit of it, so a tenant could write that much into kube-queue's log with each write to its own job.
     */
    @Test
    void theUntrustedRecordWarningQuotesEachValueCutTo200Characters() {
        String huge = "x".repeat(200_000);
        feed.observe(kind, job("team-a", "loud", false, "1", Map.of(Annotations.QUOTA_GROUP, huge,
                Annotations.EVICTED_FOR, huge)));

        List<RecordingEvents.Event> said = events.withReason("UntrustedRecord");
        assertEquals(1, said.size());
        assertTrue(said.get(0).message().length() < 2_000, "a message of " + said.get(0).message().length()
                + " characters");
    }
}
