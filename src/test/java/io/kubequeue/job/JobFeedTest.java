package io.kubequeue.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.kubequeue.job.batch.BatchJobKind;
import io.kubequeue.job.kubeflow.TFJob;
import io.kubequeue.job.kubeflow.TFJobKind;
import io.kubequeue.scheduler.Scheduler;
import io.kubequeue.scheduler.model.Admission;
import io.kubequeue.scheduler.model.AdmissionOutcome;
import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.Eviction;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.scheduler.model.QuotaNode;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.scheduler.model.SchedulerSettings;
import io.kubequeue.testing.Parse;
import io.kubequeue.testing.RecordingEvents;
import io.kubequeue.testing.TestConfig;
import io.kubequeue.testing.TrustedRecords;

/**
 * The feed on its own (no Quarkus, no API server): a real scheduler behind it, events and callbacks recorded. It
 * turns what {@link Scheduler#observe} reports into effects: events, records to write, read-backs, cycles.
 */
class JobFeedTest {

    private static final JobKey KEY = new JobKey("Job", "feed", "j");

    private final BatchJobKind kind = new BatchJobKind();
    private final RecordingEvents events = new RecordingEvents();
    private final JobDirectory directory = new JobDirectory();
    private final List<Admission> askedToRead = new CopyOnWriteArrayList<>();
    private final List<JobFeed.StartedOutside> startedOutside = new ArrayList<>();
    private final List<String> cycles = new ArrayList<>();
    private final List<JobObservation> observed = new ArrayList<>();
    private Scheduler scheduler;
    private JobFeed feed;

    @BeforeEach
    void setUp() {
        scheduler = new Scheduler(SchedulerSettings.defaults(), Clock.systemUTC());
        scheduler.replaceTree(new QuotaTree(List.of(
                new QuotaNode("g", null, List.of("feed"), null, Resources.of("cpu", 4000L)))));
        feed = feed(TestConfig.defaults());
    }

    private JobFeed feed(io.kubequeue.config.KubeQueueConfig config) {
        JobFeed feed = new JobFeed(scheduler, directory, events, config, TrustedRecords.signatures(),
                new FeedEffects() {
                    @Override
                    public void unconfirmedCopy(Admission admission) {
                        askedToRead.add(admission);
                    }

                    @Override
                    public void startedOutside(JobFeed.StartedOutside started) {
                        startedOutside.add(started);
                    }

                    @Override
                    public void changed() {
                        cycles.add("change");
                    }

                    @Override
                    public void released() {
                        cycles.add("release");
                    }
                });
        feed.onObservation(observed::add);
        return feed;
    }

    private static final AdmissionRecord RECORD = new AdmissionRecord("g", "2026-01-01T00:00:00.000Z");

    /**
     * The job with the admission record and these annotations besides (a key given twice: the latter wins), signed as
     * kube-queue signs them.
     */
    private static Job annotated(Job job, String... keysAndValues) {
        Map<String, String> annotations = new HashMap<>(Map.of(Annotations.QUOTA_GROUP, RECORD.group(),
                Annotations.ADMITTED_AT, RECORD.admittedAt()));
        for (int i = 0; i < keysAndValues.length; i += 2) {
            annotations.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        job.getMetadata().setAnnotations(TrustedRecords.signed(job.getMetadata().getUid(), annotations));
        return job;
    }

    private JobObservation lastObserved() {
        return observed.get(observed.size() - 1);
    }

    private static JobBuilder job(String resourceVersion, boolean suspended, String cpu) {
        return new JobBuilder().withNewMetadata().withName("j").withNamespace("feed").withUid("u")
                .withResourceVersion(resourceVersion).withCreationTimestamp("2026-01-01T00:00:00Z").endMetadata()
                .withNewSpec().withSuspend(suspended).withNewTemplate().withNewSpec().addNewContainer().withName("c")
                .withNewResources().addToRequests("cpu", new Quantity(cpu)).endResources().endContainer().endSpec()
                .endTemplate().endSpec();
    }

    private static Job job(String resourceVersion) {
        return job(resourceVersion, true, "1").build();
    }

    private static Job withRecord(Job job, AdmissionRecord record) {
        job.getMetadata().setAnnotations(TrustedRecords.signed(job.getMetadata().getUid(),
                Map.of(Annotations.QUOTA_GROUP, record.group(), Annotations.ADMITTED_AT, record.admittedAt())));
        return job;
    }

    /**
     * Where every job is charged, a job created unsuspended is charged though it names a controller, unless that
     * controller holds it (a JobSet, an MPIJob its launcher): a tenant writes the owner references of their own jobs,
     * and one naming their ConfigMap, or their MPIJob for a job that is not its launcher, holds nothing. Read from the
     * cached copy, as the informers hand it.
     */
    @Test
    void aControllerReferenceATenantWritesDoesNotKeepTheirJobFromBeingCharged() {
        JobFeed charging = feed(TestConfig.kubeQueue(Map.of("kube-queue.charge-unsuspended-in", "feed")));
        charging.observe(kind, kind.pruned(ownedBy(job("1", false, "1").build(), "v1", "ConfigMap", "mine")));
        assertEquals(1, startedOutside.size(), "a ConfigMap holds no job: charged");
        charging.observe(kind, kind.pruned(ownedBy(job("1", false, "1").withNewMetadata().withName("side")
                .withNamespace("feed").withUid("u2").withResourceVersion("1").endMetadata().build(),
                "kubeflow.org/v2beta1", "MPIJob", "pi")));
        assertEquals(2, startedOutside.size(), "not the MPIJob's launcher: charged");
        charging.observe(kind, kind.pruned(ownedBy(job("1", false, "1").withNewMetadata().withName("pi-launcher")
                .withNamespace("feed").withUid("u3").withResourceVersion("1").endMetadata().build(),
                "kubeflow.org/v2beta1", "MPIJob", "pi")));
        assertEquals(2, startedOutside.size(), "the MPIJob's launcher: the MPIJob is what is charged");
    }

    private static Job ownedBy(Job job, String apiVersion, String kind, String name) {
        job.getMetadata().setOwnerReferences(List.of(new io.fabric8.kubernetes.api.model.OwnerReferenceBuilder()
                .withApiVersion(apiVersion).withKind(kind).withName(name).withUid("owner").withController(true)
                .build()));
        return job;
    }

    /**
     * Each read of a job makes its key anew; the scheduler is handed the one the directory holds, so one key per job
     * is kept, not one per read (issue 27).
     */
    @Test
    void everyObservationOfAJobCarriesTheKeyTheDirectoryHolds() {
        feed.observe(kind, job("1"));
        feed.observe(kind, job("2"));
        assertEquals(2, observed.size());
        assertSame(observed.get(0).key(), observed.get(1).key());
        assertSame(observed.get(0).key(), directory.get(KEY).orElseThrow().key());
        assertEquals("2", directory.get(KEY).orElseThrow().resourceVersion());
    }

    @Test
    void aNewCopyOfAJobWhoseAdmissionAnswerWasLostAsksForARead() {
        feed.observe(kind, job("1"));
        Admission admission = scheduler.schedule().admissions().get(0);
        feed.observe(kind, job("2"));
        assertEquals(List.of(), askedToRead, "on its way, not lost: nothing to read");

        scheduler.settle(admission.key(), admission.record(), AdmissionOutcome.UNKNOWN);
        feed.observe(kind, job("3"));
        assertEquals(List.of(admission.record()), askedToRead.stream().map(Admission::record).toList());
        assertEquals("u", askedToRead.get(0).uid());
    }

    @Test
    void aQueuedJobGetsOneQueuedEventAndAnotherWhenSuspendedAgain() {
        feed.observe(kind, job("1"));
        feed.observe(kind, job("2")); // seen again, still pending: no second event
        assertEquals(List.of("queued in quota group g"),
                events.withReason("Queued").stream().map(RecordingEvents.Event::message).toList());

        Admission admission = scheduler.schedule().admissions().get(0);
        scheduler.settle(KEY, admission.record(), new AdmissionOutcome.Applied("3"));
        feed.observe(kind, withRecord(job("3", false, "1").build(), admission.record()));
        feed.observe(kind, withRecord(job("4"), admission.record())); // suspended again by someone

        assertEquals(List.of("queued in quota group g", "suspended again: queued in quota group g"),
                events.withReason("Queued").stream().map(RecordingEvents.Event::message).toList());
        assertEquals(JobState.ACTIVE, scheduler.status(KEY).orElseThrow().state());
    }

    @Test
    void aJobStartedByHandIsChargedAndItsRecordAskedForOnce() {
        feed.observe(kind, job("1"));
        feed.observe(kind, job("2", false, "1").build()); // mark removed by hand
        feed.observe(kind, job("3", false, "1").build()); // seen again: already asked

        assertEquals(1, startedOutside.size());
        JobFeed.StartedOutside started = startedOutside.get(0);
        assertTrue(started.charge().record().startedOutside());
        assertEquals("g", started.charge().record().group());
        assertEquals("its suspend mark was removed by hand", started.how());
        assertEquals(1000L, scheduler.usage("g").get("cpu"), "charged at its request, millicores");
    }

    @Test
    void theEndOfAChargedJobAsksForARelease_theEndOfAPendingOneForACycle() {
        feed.observe(kind, job("1"));
        Admission admission = scheduler.schedule().admissions().get(0);
        feed.observe(kind, withRecord(job("2", false, "1").build(), admission.record()));
        cycles.clear();

        feed.deleted(kind, job("3"));
        assertEquals(List.of("release"), cycles);
        assertTrue(directory.get(KEY).isEmpty(), "forgotten jobs leave the directory");
        assertTrue(scheduler.status(KEY).isEmpty());

        Job other = new JobBuilder(job("4")).editMetadata().withUid("u2").endMetadata().build();
        feed.observe(kind, other);
        cycles.clear();
        feed.deleted(kind, other);
        assertEquals(List.of("change"), cycles, "nothing was charged: no release");
    }

    /**
     * A running job deleted is not learnt as a run (its owner cut it short), but one deleted as it finished is: a Job
     * with {@code ttlSecondsAfterFinished: 0} may be seen only as a delete whose last state is Complete.
     */
    @Test
    void aRunningJobDeletedTeachesNoRunTime_oneDeletedAsItFinishedDoes() {
        for (boolean finished : List.of(false, true)) {
            setUp();
            feed.observe(kind, job("1"));
            Admission admission = scheduler.schedule().admissions().get(0);
            Job running = withRecord(job("2", false, "1").build(), admission.record());
            feed.observe(kind, running);
            scheduler.settle(KEY, admission.record(), new io.kubequeue.scheduler.model.AdmissionOutcome.Applied("2"));
            Job last = !finished ? running : new JobBuilder(running).editOrNewStatus().addNewCondition()
                    .withType("Complete").withStatus("True").endCondition().endStatus().build();
            cycles.clear();
            feed.deleted(kind, last);
            assertEquals(List.of("release"), cycles, "its room is released either way");
            assertTrue(scheduler.status(KEY).isEmpty());
            assertEquals(finished ? 1 : 0, scheduler.history().runs(), finished ? "finished" : "cut short");
        }
    }

    @Test
    void aJobWhoseRequestCannotBeReadGetsOneWarningAndLeavesTheQueue() {
        feed.observe(kind, job("1", true, "-1").build());

        List<RecordingEvents.Event> warnings = events.withReason("InvalidJob");
        assertEquals(1, warnings.size());
        assertTrue(warnings.get(0).message().endsWith("the job stays suspended until it is fixed"),
                warnings.get(0).message());
        assertEquals(1, feed.invalidJobs());
        assertTrue(scheduler.status(KEY).isEmpty(), "not queued");
        assertTrue(scheduler.manages(KEY), "but remembered, in case it is started by hand");

        feed.observe(kind, job("2"));
        assertEquals(0, feed.invalidJobs(), "fixed: back in the queue");
        assertEquals(JobState.ACTIVE, scheduler.status(KEY).orElseThrow().state());
    }

    @Test
    void aRunningJobIsStoppableAndCarriesItsHistory_butNotAReasonLeftFromAnEarlierEviction() {
        feed.observe(kind, annotated(job("1", false, "1").build(), Annotations.EVICTED, "reclaim",
                Annotations.EVICTED_FOR, "TFJob/team-a/train-1",
                Annotations.RECLAIMED_AT, "2026-01-01T00:20:00Z,2026-01-01T00:10:00Z", Annotations.TIMED_OUT_AT, ""));

        JobObservation o = lastObserved();
        assertEquals(JobObservation.Phase.ADMITTED, o.phase());
        assertTrue(o.stoppable(), "a batch Job stops on spec.suspend");
        assertNull(o.evictions().reason(), "read only while suspended");
        assertNull(o.evictions().preemptor());
        assertEquals(List.of(Instant.parse("2026-01-01T00:10:00Z"), Instant.parse("2026-01-01T00:20:00Z")),
                o.evictions().reclaimedAt(), "oldest first");
        assertEquals(List.of(), o.evictions().timedOutAt());
        assertEquals(List.of(), events.withReason("InvalidEvictionMark"));
    }

    @Test
    void aJobSuspendedByAReclaimCarriesWhyAndForWhom() {
        feed.observe(kind, annotated(job("1"), Annotations.EVICTED, "reclaim",
                Annotations.EVICTED_FOR, "TFJob/team-a/train-1", Annotations.RECLAIMED_AT, "2026-01-01T00:10:00Z",
                Annotations.TIMED_OUT_AT, "2026-01-01T00:05:00.123Z"));

        JobObservation o = lastObserved();
        assertEquals(JobObservation.Phase.QUEUED, o.phase());
        assertEquals(Eviction.Reason.RECLAIM, o.evictions().reason());
        assertEquals(new JobKey("TFJob", "team-a", "train-1"), o.evictions().preemptor());
        assertEquals(List.of(Instant.parse("2026-01-01T00:10:00Z")), o.evictions().reclaimedAt());
        assertEquals(List.of(Instant.parse("2026-01-01T00:05:00.123Z")), o.evictions().timedOutAt());
        assertTrue(directory.get(KEY).orElseThrow().evictionMarked(), "its next admission clears the marks");

        feed.observe(kind, annotated(job("2"), Annotations.EVICTED, "timeout", Annotations.EVICTED_FOR, ""));
        assertEquals(Eviction.Reason.TIMEOUT, lastObserved().evictions().reason());
        assertNull(lastObserved().evictions().preemptor());
    }

    @Test
    void anEvictionMarkThatDoesNotReadGetsOneWarningAndIsReadAsAbsent_theJobIsObservedAllTheSame() {
        // signed: the values are kube-queue's (e.g. of a later version), they only do not read
        Job job = annotated(job("1"), Annotations.EVICTED, "preempted", Annotations.EVICTED_FOR, "train-1",
                Annotations.RECLAIMED_AT, "yesterday", Annotations.TIMED_OUT_AT, "2026-01-01T00:05:00Z");
        feed.observe(kind, job);
        feed.observe(kind, annotated(job("2"), Annotations.EVICTED, "preempted", Annotations.EVICTED_FOR, "train-1",
                Annotations.RECLAIMED_AT, "yesterday", Annotations.TIMED_OUT_AT, "2026-01-01T00:05:00Z"));

        assertEquals(2, observed.size(), "observed each time");
        JobObservation o = lastObserved();
        assertNull(o.evictions().reason());
        assertNull(o.evictions().preemptor());
        assertEquals(List.of(), o.evictions().reclaimedAt());
        assertEquals(List.of(Instant.parse("2026-01-01T00:05:00Z")), o.evictions().timedOutAt(), "the others still read");
        assertTrue(scheduler.manages(KEY));
        List<String> warnings = events.withReason("InvalidEvictionMark").stream().map(e -> e.type() + " " + e.message())
                .toList();
        assertEquals(3, warnings.size(), "one per annotation, not one per observation: " + warnings);
        assertTrue(warnings.get(0).startsWith("Warning annotation kube-queue/evicted has \"preempted\", which is not"
                + " reclaim, timeout or empty"), warnings.get(0));
        assertTrue(warnings.get(1).contains("kube-queue/evicted-for has \"train-1\""), warnings.get(1));
        assertTrue(warnings.get(2).contains("kube-queue/reclaimed-at has \"yesterday\""), warnings.get(2));
    }

    @Test
    void aKubeflowJobIsStoppableOnlyWithRunPolicySuspend() {
        TFJobKind tf = new TFJobKind(Parse.client());
        String manifest = """
                apiVersion: kubeflow.org/v1
                kind: TFJob
                metadata:
                  name: t
                  namespace: feed
                  uid: t1
                  creationTimestamp: "2026-01-01T00:00:00Z"
                  annotations: {scheduling.x-k8s.io/suspend: "true"}
                spec:
                  %s
                  tfReplicaSpecs:
                    Worker: {template: {spec: {containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]}}}
                """;
        feed.observe(tf, (TFJob) Parse.yaml(manifest.formatted("runPolicy: {cleanPodPolicy: None}")).get(0));
        assertFalse(lastObserved().stoppable(), "queued by the ack-arena annotation alone: never evicted");
        assertNull(directory.get(new JobKey("TFJob", "feed", "t")).orElseThrow().stopMark());

        feed.observe(tf, (TFJob) Parse.yaml(manifest.formatted("runPolicy: {suspend: true}")).get(0));
        assertTrue(lastObserved().stoppable());
        assertEquals(SuspendMark.RUN_POLICY_SUSPEND, directory.get(new JobKey("TFJob", "feed", "t")).orElseThrow()
                .stopMark());
    }

    @Test
    void aJobNeverSuspendedIsNotManaged() {
        feed.observe(kind, job("1", false, "1").build());

        assertFalse(scheduler.manages(KEY));
        assertEquals(List.of(), events.events());
        assertEquals(List.of(), cycles);
    }
}
