package io.kubequeue.admission;

import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kubequeue.job.Annotations;
import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.JobKey;

/**
 * An {@link AsyncJobRequests} that sends nothing, for plain unit tests of the admission path: every patch and read
 * is answered as the test scripts it, and recorded.
 *
 * <p>An answer is a future: {@link #ok} (the server's object), {@link #fails} (an HTTP error, as
 * {@link AsyncJobRequests} reports one), or a {@link CompletableFuture} the test completes later (an answer still
 * on its way). One-shot answers ({@link #answerPatch}, {@link #answerGet}) are used first, in the order given;
 * once they run out, the standing answer ({@link #answerPatches}, {@link #answerGets}) is used. A request with
 * neither fails with code 0 (no answer) and is listed in {@link #unscripted()}, so a test can check it made none.
 */
public final class FakeJobRequests extends AsyncJobRequests {

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * One JSON Patch as received.
     *
     * @param type the job's model class
     * @param key  the job patched
     * @param body the JSON Patch document, as sent
     */
    public record Patch(Class<?> type, JobKey key, String body) {

        /** The operations of the patch, in order, parsed. */
        public List<JsonNode> ops() {
            try {
                List<JsonNode> ops = new ArrayList<>();
                JSON.readTree(body).forEach(ops::add);
                return ops;
            } catch (JsonProcessingException e) {
                throw new AssertionError("not JSON: " + body, e);
            }
        }

        /** Whether the patch holds an operation {@code op} on {@code path}. */
        public boolean has(String op, String path) {
            return ops().stream().anyMatch(o -> op.equals(o.path("op").asText()) && path.equals(o.path("path").asText()));
        }

        /** The value of the first operation {@code op} on {@code path}; a missing node if there is none. */
        public JsonNode value(String op, String path) {
            return ops().stream().filter(o -> op.equals(o.path("op").asText()) && path.equals(o.path("path").asText()))
                    .findFirst().map(o -> o.path("value")).orElse(JSON.missingNode());
        }

        /**
         * The admission record the patch writes, whether it adds the two annotations one by one or the whole
         * annotation map; null if it writes none.
         */
        public AdmissionRecord record() {
            JsonNode map = value("add", "/metadata/annotations");
            String group = map.isObject() ? map.path(Annotations.QUOTA_GROUP).asText(null)
                    : value("add", "/metadata/annotations/" + pointer(Annotations.QUOTA_GROUP)).asText(null);
            String admittedAt = map.isObject() ? map.path(Annotations.ADMITTED_AT).asText(null)
                    : value("add", "/metadata/annotations/" + pointer(Annotations.ADMITTED_AT)).asText(null);
            return group == null ? null : new AdmissionRecord(group, admittedAt);
        }

        private static String pointer(String segment) {
            return segment.replace("~", "~0").replace("/", "~1");
        }
    }

    private final Deque<CompletableFuture<? extends HasMetadata>> patchAnswers = new ConcurrentLinkedDeque<>();
    private final Deque<CompletableFuture<? extends HasMetadata>> getAnswers = new ConcurrentLinkedDeque<>();
    private volatile Function<Patch, CompletableFuture<? extends HasMetadata>> standingPatchAnswer;
    private volatile Function<JobKey, CompletableFuture<? extends HasMetadata>> standingGetAnswer;
    private final List<Patch> patches = new CopyOnWriteArrayList<>();
    private final List<JobKey> gets = new CopyOnWriteArrayList<>();
    private final List<String> unscripted = new CopyOnWriteArrayList<>();

    public FakeJobRequests() {
        super(null);
    }

    /** A successful answer: the object as the server stored (patch) or holds (read) it; null reads as absent. */
    public static CompletableFuture<HasMetadata> ok(HasMetadata object) {
        return CompletableFuture.completedFuture(object);
    }

    /** An HTTP error answer with that status code (no {@code Status} body), as {@link AsyncJobRequests} fails. */
    public static CompletableFuture<HasMetadata> fails(int code) {
        return CompletableFuture.failedFuture(new KubernetesClientException("scripted failure " + code, code, null));
    }

    /** Answers the next patch not answered yet by an earlier one-shot answer. */
    public FakeJobRequests answerPatch(CompletableFuture<? extends HasMetadata> answer) {
        patchAnswers.add(answer);
        return this;
    }

    /** Answers every patch once the one-shot answers have run out. */
    public FakeJobRequests answerPatches(Function<Patch, CompletableFuture<? extends HasMetadata>> answer) {
        standingPatchAnswer = answer;
        return this;
    }

    /** Answers the next read not answered yet by an earlier one-shot answer. */
    public FakeJobRequests answerGet(CompletableFuture<? extends HasMetadata> answer) {
        getAnswers.add(answer);
        return this;
    }

    /** Answers every read once the one-shot answers have run out. */
    public FakeJobRequests answerGets(Function<JobKey, CompletableFuture<? extends HasMetadata>> answer) {
        standingGetAnswer = answer;
        return this;
    }

    /** The patches received so far, oldest first. */
    public List<Patch> patches() {
        return List.copyOf(patches);
    }

    /** The jobs read so far, one entry per read, oldest first. */
    public List<JobKey> gets() {
        return List.copyOf(gets);
    }

    /** The requests that found no answer scripted, e.g. {@code "GET Job/ns/j"}. */
    public List<String> unscripted() {
        return List.copyOf(unscripted);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T extends HasMetadata> CompletableFuture<T> patch(io.kubequeue.job.JobKind<T> kind, JobKey key,
                                                              String patch) {
        Patch received = new Patch(kind.type(), key, patch);
        patches.add(received);
        CompletableFuture<? extends HasMetadata> answer = patchAnswers.poll();
        Function<Patch, CompletableFuture<? extends HasMetadata>> standing = standingPatchAnswer;
        if (answer == null && standing != null) {
            answer = standing.apply(received);
        }
        return (CompletableFuture<T>) (answer != null ? answer : unscripted("PATCH", key));
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T extends HasMetadata> CompletableFuture<T> get(io.kubequeue.job.JobKind<T> kind, JobKey key) {
        gets.add(key);
        CompletableFuture<? extends HasMetadata> answer = getAnswers.poll();
        Function<JobKey, CompletableFuture<? extends HasMetadata>> standing = standingGetAnswer;
        if (answer == null && standing != null) {
            answer = standing.apply(key);
        }
        return (CompletableFuture<T>) (answer != null ? answer : unscripted("GET", key));
    }

    private CompletableFuture<HasMetadata> unscripted(String method, JobKey key) {
        String request = method + " " + key.kind() + "/" + key.namespace() + "/" + key.name();
        unscripted.add(request);
        return CompletableFuture.failedFuture(new KubernetesClientException("no answer scripted for " + request));
    }
}
