package io.kubequeue.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.kubequeue.job.Annotations;
import io.kubequeue.job.JobDirectory;
import io.kubequeue.job.RecordSignatures;
import io.kubequeue.testing.TrustedRecords;
import io.kubequeue.job.JobKind;
import io.kubequeue.job.JobKinds;
import io.kubequeue.job.StopsWhenSuspended;
import io.kubequeue.job.SuspendMark;
import io.kubequeue.scheduler.model.Admission;
import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.Eviction;
import io.kubequeue.scheduler.model.EvictionMarks;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.testing.Parse;
import io.kubequeue.testing.StrictApiServer;

/**
 * The eviction patch as a real API server applies it (RFC 6902 strictly), sent as {@link Evicter} sends it
 * ({@link AsyncJobRequests}), on a running admitted job of every kind that can be evicted: it suspends the job,
 * writes the eviction marks and keeps the admission record; a decision about an earlier admission, or about a
 * deleted namesake, is refused and changes nothing; and the next admission patch, built from the evicted job as
 * cached, applies on it and clears the reason and preemptor while the history stays.
 */
class EvictionPatchOnStrictServerTest {

    private static final RecordSignatures SIGNATURES = TrustedRecords.signatures();

    private static final AdmissionRecord RECORD = new AdmissionRecord("root.b", "2026-01-01T00:00:00.000Z");
    private static final Instant AT = Instant.parse("2026-01-01T00:30:00Z");
    private static final JobKey PREEMPTOR = new JobKey("TFJob", "team-a", "train-1");
    private static final String POD = "template: {spec: {restartPolicy: Never, containers: [{name: c, image: x}]}}";

    private KubernetesMockServer server;
    private KubernetesClient client;
    private AsyncJobRequests requests;

    @BeforeEach
    void start() {
        server = StrictApiServer.started();
        client = server.createClient();
        requests = new AsyncJobRequests(client);
    }

    @AfterEach
    void stop() {
        client.close();
        server.destroy();
    }

    /** A running, admitted job of each kind that can be evicted, as its controller and kube-queue left it. */
    static Stream<Arguments> admittedJobs() {
        String meta = "metadata: {name: j, namespace: team-b, annotations: {kube-queue/quota-group: "
                + RECORD.group() + ", kube-queue/admitted-at: \"" + RECORD.admittedAt() + "\", owner: alice}}\n";
        String replica = "{Worker: {replicas: 2, " + POD + "}}";
        return Stream.of(
                Arguments.of("apiVersion: batch/v1\nkind: Job\n" + meta + "spec: {suspend: false, " + POD + "}"),
                Arguments.of("apiVersion: kubeflow.org/v1\nkind: TFJob\n" + meta
                        + "spec: {runPolicy: {suspend: false}, tfReplicaSpecs: " + replica + "}"),
                Arguments.of("apiVersion: kubeflow.org/v1\nkind: PyTorchJob\n" + meta
                        + "spec: {runPolicy: {suspend: false}, pytorchReplicaSpecs: " + replica + "}"),
                Arguments.of("apiVersion: kubeflow.org/v1\nkind: MPIJob\n" + meta
                        + "spec: {runPolicy: {suspend: false}, mpiReplicaSpecs: " + replica + "}"),
                Arguments.of("apiVersion: kubeflow.org/v2beta1\nkind: MPIJob\n" + meta
                        + "spec: {runPolicy: {suspend: false, cleanPodPolicy: Running}, mpiReplicaSpecs: " + replica + "}"));
    }

    @SuppressWarnings("unchecked")
    private JobKind<HasMetadata> kindOf(HasMetadata job) {
        return (JobKind<HasMetadata>) JobKinds.all(client).stream().filter(k -> k.type() == job.getClass())
                .findFirst().orElseThrow();
    }

    private static Eviction reclaim(String uid, AdmissionRecord record) {
        return new Eviction(new JobKey("any", "team-b", "j"), uid, record, Eviction.Reason.RECLAIM, PREEMPTOR, "root.a",
                Resources.NONE, AT, new EvictionMarks(Eviction.Reason.RECLAIM, PREEMPTOR, List.of(AT), List.of()));
    }

    private HasMetadata send(JobKind<HasMetadata> kind, String patch) {
        return requests.patch(kind, new JobKey(kind.kind(), "team-b", "j"), patch).join();
    }

    private HasMetadata read(JobKind<HasMetadata> kind) {
        return requests.get(kind, new JobKey(kind.kind(), "team-b", "j")).join();
    }

    private static int refusal(Runnable write) {
        CompletionException e = assertThrows(CompletionException.class, write::run);
        return assertInstanceOf(KubernetesClientException.class, e.getCause()).getCode();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("admittedJobs")
    void anEvictionSuspendsTheJobAndTheNextAdmissionRunsItAgain(String manifest) {
        HasMetadata created = client.resource(Parse.yaml(manifest).get(0)).create();
        JobKind<HasMetadata> kind = kindOf(created);
        @SuppressWarnings("unchecked")
        SuspendMark stopMark = ((StopsWhenSuspended<HasMetadata>) kind).stopMark(created).orElseThrow();
        String uid = created.getMetadata().getUid();

        // a decision about an earlier admission, or about another object of that name, changes nothing
        AdmissionRecord earlier = new AdmissionRecord(RECORD.group(), "2025-12-31T23:00:00.000Z");
        assertEquals(422, refusal(() -> send(kind, EvictionPatch.of(stopMark, reclaim(uid, earlier), uid, SIGNATURES).toString())));
        assertEquals(422, refusal(() -> send(kind, EvictionPatch.of(stopMark, reclaim("not-" + uid, RECORD), uid, SIGNATURES)
                .toString())));
        assertFalse(kind.held(read(kind)), "still running");

        HasMetadata evicted = send(kind, EvictionPatch.of(stopMark, reclaim(uid, RECORD), uid, SIGNATURES).toString());
        assertEquals(evicted.getMetadata().getResourceVersion(), read(kind).getMetadata().getResourceVersion());
        assertTrue(kind.held(evicted), "suspended again");
        assertEquals(List.of(stopMark), kind.suspendMarks(evicted));
        Map<String, String> annotations = evicted.getMetadata().getAnnotations();
        assertEquals(RECORD.group(), annotations.get(Annotations.QUOTA_GROUP), "the admission record stays");
        assertEquals(RECORD.admittedAt(), annotations.get(Annotations.ADMITTED_AT));
        assertEquals("reclaim", annotations.get(Annotations.EVICTED));
        // the preemptor is another team's job: sealed on the victim, opened by kube-queue only
        assertFalse(annotations.get(Annotations.EVICTED_FOR).contains("team-a"), annotations.get(Annotations.EVICTED_FOR));
        assertEquals("TFJob/team-a/train-1", TrustedRecords.opened(uid, annotations.get(Annotations.EVICTED_FOR)));
        assertEquals(AT.toString(), annotations.get(Annotations.RECLAIMED_AT));
        assertEquals("", annotations.get(Annotations.TIMED_OUT_AT));
        assertEquals("alice", annotations.get("owner"), "other annotations stay");
        assertEquals(RecordSignatures.Trust.TRUSTED, SIGNATURES.read(uid, annotations).trust(),
                "what the server holds is what was signed");

        // admitted again, from the cached copy of the evicted job
        HasMetadata cached = kind.pruned(evicted);
        RecordSignatures.Reading signed = SIGNATURES.read(uid, cached.getMetadata().getAnnotations());
        assertEquals(RecordSignatures.Trust.TRUSTED, signed.trust(), "the cache keeps the signature");
        JobDirectory.Entry entry = JobDirectory.Entry.of(kind, cached, kind.suspendMarks(cached),
                signed.trusted().history());
        assertTrue(entry.evictionMarked());
        AdmissionRecord again = new AdmissionRecord(RECORD.group(), "2026-01-01T01:00:00.000Z");
        HasMetadata running = send(kind, AdmissionPatch.of(entry,
                new Admission(new JobKey(kind.kind(), "team-b", "j"), uid, again, Resources.NONE, 0), SIGNATURES)
                .toString());
        assertFalse(kind.held(running));
        Map<String, String> after = running.getMetadata().getAnnotations();
        assertEquals(again.admittedAt(), after.get(Annotations.ADMITTED_AT));
        assertEquals("", after.get(Annotations.EVICTED), "no longer suspended by kube-queue");
        assertEquals("", after.get(Annotations.EVICTED_FOR));
        assertEquals(AT.toString(), after.get(Annotations.RECLAIMED_AT), "the history stays");
        assertEquals(again, SIGNATURES.read(uid, after).record(), "signed again, over the new record");
    }
}
