package io.kubequeue.admission;

import static io.kubequeue.admission.FakeJobRequests.fails;
import static io.kubequeue.admission.FakeJobRequests.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kubequeue.job.JobDirectory;
import io.kubequeue.job.JobKind;
import io.kubequeue.job.batch.BatchJobKind;
import io.kubequeue.scheduler.model.JobKey;

/**
 * The one write path's skeleton on its own ({@link SuspendWrites}), with a decision that names each step it is asked
 * for: which answers reach which step, and which requests each costs. Admissions and evictions through it are tested
 * in {@link AdmitterOutcomesTest} and {@link EvicterOutcomesTest}.
 */
class SuspendWritesTest {

    private static final JobKey KEY = new JobKey("Job", "team-a", "train");
    private static final String UID = "u1";

    private final FakeJobRequests requests = new FakeJobRequests();
    private final JobDirectory directory = new JobDirectory();
    private final SuspendWrites writes = new SuspendWrites(requests, directory);

    @AfterEach
    void noUnscriptedRequests() {
        assertEquals(List.of(), requests.unscripted());
    }

    private static Job job(String uid, String resourceVersion) {
        return new JobBuilder().withNewMetadata().withName(KEY.name()).withNamespace(KEY.namespace()).withUid(uid)
                .withResourceVersion(resourceVersion).endMetadata().withNewSpec().withSuspend(true).endSpec().build();
    }

    /** A decision whose outcome names the step that ended it; it plans one patch unless told to stay unsent. */
    private final class Naming implements SuspendWrites.Decision<String> {

        private final boolean send;

        Naming(boolean send) {
            this.send = send;
        }

        @Override
        public JobKey key() {
            return KEY;
        }

        @Override
        public String uid() {
            return UID;
        }

        @Override
        public String unmanaged() {
            return "unmanaged";
        }

        @Override
        public String gone() {
            return "gone";
        }

        @Override
        public SuspendWrites.Plan<String> plan(JobDirectory.Entry seen) {
            return send ? SuspendWrites.Plan.send(this, "[{\"op\":\"test\",\"path\":\"/metadata/resourceVersion\","
                    + "\"value\":\"" + seen.resourceVersion() + "\"}]") : SuspendWrites.Plan.unsent("unsent");
        }

        @Override
        public String applied(HasMetadata answer) {
            return "applied at " + answer.getMetadata().getResourceVersion();
        }

        @Override
        public CompletableFuture<String> failed(JobDirectory.Entry seen, String patch, SuspendWrites.Failure failure) {
            return writes.readBack(seen.kind(), this, failure);
        }

        @Override
        public CompletableFuture<String> read(JobKind<?> kind, HasMetadata job) {
            return CompletableFuture.completedFuture("read at " + job.getMetadata().getResourceVersion());
        }

        @Override
        public String unread(SuspendWrites.Failure after, SuspendWrites.Failure read) {
            return "unread (" + read.code() + ") after " + describe(after);
        }

        private String describe(SuspendWrites.Failure failure) {
            return failure == null ? "none" : failure.code() + (failure.definite() ? " definite" : " ambiguous");
        }
    }

    private void seen() {
        directory.put(KEY, JobDirectory.Entry.of(new BatchJobKind(), job(UID, "1"), List.of()));
    }

    @Test
    void aJobNoLongerManagedIsNotWritten() {
        assertEquals("unmanaged", writes.write(new Naming(true)).join());
        assertEquals(List.of(), requests.patches());
    }

    @Test
    void aPlanThatEndsUnsentCostsNoRequest() {
        seen();
        assertEquals("unsent", writes.write(new Naming(false)).join());
        assertEquals(List.of(), requests.patches());
        assertEquals(List.of(), requests.gets());
    }

    static Stream<Arguments> answers() {
        return Stream.of(
                Arguments.of("a plain success", ok(job(UID, "2")), null, "applied at 2", 0),
                Arguments.of("404", fails(404), null, "gone", 0),
                Arguments.of("409, read shows it", fails(409), ok(job(UID, "3")), "read at 3", 1),
                Arguments.of("422, read fails", fails(422), fails(500), "unread (500) after 422 definite", 1),
                Arguments.of("500, read shows it", fails(500), ok(job(UID, "1")), "read at 1", 1),
                Arguments.of("timeout, read shows it", fails(0), ok(job(UID, "1")), "read at 1", 1),
                Arguments.of("503, absent when read", fails(503), ok(null), "gone", 1),
                Arguments.of("500, another object when read", fails(500), ok(job("u2", "9")), "gone", 1),
                Arguments.of("403, read fails", fails(403), fails(0), "unread (0) after 403 definite", 1));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("answers")
    void eachAnswerReachesItsStep(String name, CompletableFuture<HasMetadata> patchAnswer,
                                  CompletableFuture<HasMetadata> readAnswer, String expected, int reads) {
        seen();
        requests.answerPatch(patchAnswer);
        if (readAnswer != null) {
            requests.answerGet(readAnswer);
        }
        assertEquals(expected, writes.write(new Naming(true)).join());
        assertEquals(1, requests.patches().size(), "one write");
        assertTrue(requests.patches().get(0).body().contains("\"value\":\"1\""), "built on the job as last seen");
        assertEquals(reads, requests.gets().size(), "a read only after an answer that is not a plain success");
    }

    @Test
    void aReReadWithoutAFailureReadsOnly() {
        seen();
        requests.answerGet(ok(job(UID, "4")));
        assertEquals("read at 4", writes.readBack(new BatchJobKind(), new Naming(true), null).join());
        assertEquals(List.of(), requests.patches());
    }

    @ParameterizedTest
    @ValueSource(ints = {400, 401, 403, 409, 422})
    void refusalsThatDidNotApplyAreDefinite(int code) {
        assertTrue(SuspendWrites.definiteRefusal(code));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 408, 429, 500, 502, 503, 504})
    void answersThatMayHaveAppliedAreAmbiguous(int code) {
        assertFalse(SuspendWrites.definiteRefusal(code));
    }

    @Test
    void aFailureCarriesTheServersOwnMessage() {
        KubernetesClientException refused = new KubernetesClientException("Failure executing: PATCH at: https://x",
                422, new StatusBuilder().withCode(422).withMessage("the server rejected our request").build());
        assertEquals(new SuspendWrites.Failure(422, "the server rejected our request"),
                SuspendWrites.Failure.of(new java.util.concurrent.CompletionException(refused)));
        KubernetesClientException bare = new KubernetesClientException("no answer", 0, null);
        assertEquals(new SuspendWrites.Failure(0, "no answer"), SuspendWrites.Failure.of(bare));
    }
}
