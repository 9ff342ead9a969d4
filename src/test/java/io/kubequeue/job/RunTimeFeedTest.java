package io.kubequeue.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
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
import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.scheduler.model.QuotaNode;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.scheduler.model.RunTimeHints;
import io.kubequeue.scheduler.model.SchedulerSettings;
import io.kubequeue.testing.RecordingEvents;
import io.kubequeue.testing.TestConfig;
import io.kubequeue.testing.TrustedRecords;

/**
 * Issue 30 through the feed, with a real scheduler behind it: every observation of a queued or admitted job carries
 * what the job says of its run time (the annotation {@link Annotations#EXPECTED_DURATION}, its
 * {@code activeDeadlineSeconds}); a bad expected duration gets one Warning and the job queues as usual; and each
 * finished job kube-queue admitted is learnt as one run, however often it is seen (start-up recovery and every
 * resync list it again), from the copy the informer caches as from the job.
 */
class RunTimeFeedTest {

    private static final JobKey KEY = new JobKey("Job", "feed", "j");
    private static final AdmissionRecord RECORD = new AdmissionRecord("g", "2026-01-01T00:00:00.000Z");

    private final BatchJobKind kind = new BatchJobKind();
    private final RecordingEvents events = new RecordingEvents();
    private final List<JobObservation> observed = new ArrayList<>();
    private Scheduler scheduler;
    private JobFeed feed;

    @BeforeEach
    void setUp() {
        scheduler = new Scheduler(SchedulerSettings.defaults(), Clock.systemUTC());
        scheduler.replaceTree(new QuotaTree(List.of(
                new QuotaNode("g", null, List.of("feed"), null, Resources.of("cpu", 4000L)))));
        feed = new JobFeed(scheduler, new JobDirectory(), events, TestConfig.defaults(), TrustedRecords.signatures());
        feed.onObservation(observed::add);
    }

    private static JobBuilder job(boolean suspended, Long activeDeadlineSeconds, String expectedDuration) {
        Map<String, String> annotations = new HashMap<>();
        if (expectedDuration != null) {
            annotations.put(Annotations.EXPECTED_DURATION, expectedDuration);
        }
        return new JobBuilder().withNewMetadata().withName("j").withNamespace("feed").withUid("u")
                .withResourceVersion("1").withCreationTimestamp("2026-01-01T00:00:00Z").withAnnotations(annotations)
                .endMetadata()
                .withNewSpec().withSuspend(suspended).withActiveDeadlineSeconds(activeDeadlineSeconds).withNewTemplate()
                .withNewSpec().addNewContainer().withName("c").withNewResources()
                .addToRequests("cpu", new Quantity("1")).endResources().endContainer().endSpec().endTemplate().endSpec();
    }

    /** The job with this admission record, signed as kube-queue signs it, beside its other annotations. */
    private static Job withRecord(Job job, AdmissionRecord record) {
        Map<String, String> annotations = new HashMap<>(job.getMetadata().getAnnotations());
        annotations.put(Annotations.QUOTA_GROUP, record.group());
        annotations.put(Annotations.ADMITTED_AT, record.admittedAt());
        job.getMetadata().setAnnotations(TrustedRecords.signed(job.getMetadata().getUid(), annotations));
        return job;
    }

    /** A Job that completed at {@code completionTime} (null: it says not when). */
    private static Job completed(String completionTime) {
        return job(false, 7200L, null).withNewStatus().withCompletionTime(completionTime).addNewCondition()
                .withType("Complete").withStatus("True").endCondition().endStatus().build();
    }

    private JobObservation lastObserved() {
        return observed.get(observed.size() - 1);
    }

    @Test
    void aQueuedJobsObservationCarriesItsExpectedDurationAndActiveDeadlineSeconds() {
        feed.observe(kind, job(true, 7200L, "1h30m").build());
        assertEquals(new RunTimeHints(Duration.ofMinutes(90), Duration.ofHours(2)), lastObserved().runTime());
        assertEquals(JobState.ACTIVE, scheduler.status(KEY).orElseThrow().state());

        feed.observe(kind, kind.pruned(job(true, 7200L, "45s").build()));
        assertEquals(new RunTimeHints(Duration.ofSeconds(45), Duration.ofHours(2)), lastObserved().runTime(),
                "read off the informer's copy alike");

        feed.observe(kind, job(true, null, null).build());
        assertEquals(RunTimeHints.NONE, lastObserved().runTime(), "a job that says nothing");
        assertEquals(List.of(), events.withReason("InvalidExpectedDuration"));
    }

    @Test
    void anAdmittedJobsObservationCarriesItsHintsToo() {
        feed.observe(kind, withRecord(job(false, 600L, "90m").build(), RECORD));
        assertEquals(JobObservation.Phase.ADMITTED, lastObserved().phase());
        assertEquals(new RunTimeHints(Duration.ofMinutes(90), Duration.ofMinutes(10)), lastObserved().runTime());
    }

    @Test
    void aBadExpectedDurationGetsOneWarningAndTheJobQueuesAsUsual() {
        Job job = job(true, 7200L, "1.5h").build(); // fabric8 alone would read it as 5h
        feed.observe(kind, job);
        feed.observe(kind, kind.pruned(job));
        feed.observe(kind, job);
        assertEquals(new RunTimeHints(null, Duration.ofHours(2)), lastObserved().runTime(), "the deadline still reads");
        assertEquals(JobState.ACTIVE, scheduler.status(KEY).orElseThrow().state(), "queued as usual");
        assertEquals(1, events.withReason("Queued").size());
        List<RecordingEvents.Event> warnings = events.withReason("InvalidExpectedDuration");
        assertEquals(1, warnings.size(), "one Warning, however often the job is seen: " + warnings);
        assertTrue(warnings.get(0).message().contains("\"1.5h\""), warnings.get(0).message());

        Job tooLong = job(true, null, "1h".repeat(5_000)).build();
        feed.observe(kind, tooLong);
        feed.observe(kind, kind.pruned(tooLong)); // cut to 65 characters in the cache: the same Warning
        assertEquals(RunTimeHints.NONE, lastObserved().runTime());
        warnings = events.withReason("InvalidExpectedDuration");
        assertEquals(2, warnings.size(), "one more for the new value: " + warnings);
        assertTrue(warnings.get(1).message().length() < 400, "the value is not written out: " + warnings.get(1));

        for (String bad : List.of("-1h", "0s", "367d", "soon", "", "99999999999999999999h")) {
            feed.observe(kind, job(true, null, bad).build());
            assertEquals(RunTimeHints.NONE, lastObserved().runTime(), bad);
        }
        assertEquals(8, events.withReason("InvalidExpectedDuration").size(), "one for each value");
    }

    @Test
    void aFinishedJobKubeQueueAdmittedIsLearntOnce_asOftenAsItIsSeen() {
        Job done = withRecord(completed("2026-01-01T01:00:00Z"), RECORD);
        feed.observe(kind, done);
        assertEquals(1, scheduler.history().runs());
        feed.observe(kind, done); // a resync
        feed.observe(kind, kind.pruned(done)); // start-up recovery feeds the copy the informer caches
        assertEquals(1, scheduler.history().runs(), "the same run counts once");

        // the same job admitted again later is another run
        feed.observe(kind, withRecord(completed("2026-01-02T01:00:00Z"),
                new AdmissionRecord("g", "2026-01-02T00:00:00.000Z")));
        assertEquals(2, scheduler.history().runs());
    }

    @Test
    void aFailedJobIsLearntAtItsFailedCondition() {
        Job failed = withRecord(job(false, null, null).withNewStatus().addNewCondition().withType("Failed")
                .withStatus("True").withLastTransitionTime("2026-01-01T00:20:00Z").endCondition().endStatus().build(),
                RECORD);
        feed.observe(kind, kind.pruned(failed));
        assertEquals(1, scheduler.history().runs());
    }

    @Test
    void noRunIsLearntWithoutKubeQueuesRecordOrACompletionTime() {
        feed.observe(kind, completed("2026-01-01T01:00:00Z"));
        assertEquals(0, scheduler.history().runs(), "no record: never admitted by kube-queue");
        feed.observe(kind, withRecord(completed("2026-01-01T01:00:00Z"),
                new AdmissionRecord("g", AdmissionRecord.STARTED_OUTSIDE)));
        assertEquals(0, scheduler.history().runs(), "started outside kube-queue: its run is not an admitted one");
        feed.observe(kind, withRecord(completed(null), RECORD));
        feed.observe(kind, withRecord(completed("not a time"), RECORD));
        assertEquals(0, scheduler.history().runs(), "no completion time that reads");
        Job forged = completed("2026-01-01T01:00:00Z");
        forged.getMetadata().setAnnotations(Map.of(Annotations.QUOTA_GROUP, "g", Annotations.ADMITTED_AT,
                RECORD.admittedAt()));
        feed.observe(kind, forged);
        assertEquals(0, scheduler.history().runs(), "a record kube-queue did not sign is none");
        feed.observe(kind, withRecord(completed("2028-01-01T01:00:00Z"), RECORD));
        assertEquals(0, scheduler.history().runs(), "a run of two years is absurd");
        feed.observe(kind, withRecord(completed("2026-01-01T01:00:00Z"), RECORD));
        assertEquals(1, scheduler.history().runs(), "and the same job with all of it is learnt");
    }
}
