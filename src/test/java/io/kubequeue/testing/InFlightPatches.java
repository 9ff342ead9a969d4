package io.kubequeue.testing;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Function;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;

/**
 * What can happen to a JSON Patch between the client sending it and the API server applying it, for the
 * {@link StrictApiServer}: the two races of issue 26 that a mock answering at once never shows.
 * <ul>
 *   <li>{@link #editBeforeNextPatch}: another client's write lands just before the patch is applied (a job's owner
 *       raises {@code parallelism} while kube-queue's admission waits in its pipeline): the patch then applies to
 *       the edited object, as a real server would apply it.</li>
 *   <li>{@link #loseAnswerToNextPatch}: the patch is answered 504 ({@code Timeout}, what kube-apiserver's timeout
 *       filter answers, and what a client sees as its own timeout) without being applied, and is kept;
 *       {@link #applyLate} applies it afterwards, as a real server may still do once the client has given up
 *       (fabric8 gives up at 10 s; the server's handler goes on until its own request timeout, 60 s by default).
 *       Its answer then reaches nobody.</li>
 * </ul>
 * Paths are request paths without the query, e.g. {@code /apis/batch/v1/namespaces/default/jobs/j}. Thread-safe.
 */
public final class InFlightPatches {

    private final Map<String, String> editsBefore = new ConcurrentHashMap<>();
    private final Map<String, Boolean> answersToLose = new ConcurrentHashMap<>();
    private final Queue<RecordedRequest> late = new ConcurrentLinkedQueue<>();
    private final Map<String, Integer> editsDone = new ConcurrentHashMap<>();
    private volatile Function<RecordedRequest, MockResponse> server;

    InFlightPatches() {
    }

    /** The strict server's own handling of a request (checks, then CRUD): set once by the server. */
    void serveWith(Function<RecordedRequest, MockResponse> server) {
        this.server = server;
    }

    /**
     * Just before the next JSON Patch to {@code path} is applied, this JSON merge patch (RFC 7386) of the main
     * resource is applied first, as another client's write.
     */
    public InFlightPatches editBeforeNextPatch(String path, String mergePatch) {
        editsBefore.put(path, mergePatch);
        return this;
    }

    /** Whether the edit set for {@code path} has been applied. */
    public boolean edited(String path) {
        return editsDone.containsKey(path);
    }

    /** The next JSON Patch to {@code path} is answered 504 and kept unapplied, for {@link #applyLate}. */
    public InFlightPatches loseAnswerToNextPatch(String path) {
        answersToLose.put(path, Boolean.TRUE);
        return this;
    }

    /** Patches kept by {@link #loseAnswerToNextPatch} and not applied yet. */
    public int kept() {
        return late.size();
    }

    /**
     * Applies the kept patches now, each as the strict server applies a patch on arrival (its {@code test} ops
     * against the object as stored now).
     *
     * @return the HTTP status each would have been answered with (nobody hears it)
     */
    public List<Integer> applyLate() {
        List<Integer> codes = new ArrayList<>();
        for (RecordedRequest request = late.poll(); request != null; request = late.poll()) {
            codes.add(server.apply(request).code());
        }
        return codes;
    }

    /** Called by the server for each JSON Patch on arrival: the answer to send instead of applying it, or null. */
    MockResponse intercept(RecordedRequest request) {
        String path = request.getPath();
        int query = path.indexOf('?');
        path = query < 0 ? path : path.substring(0, query);
        String edit = editsBefore.remove(path);
        if (edit != null) {
            Headers headers = Headers.builder().add("Content-Type", "application/merge-patch+json").build();
            MockResponse edited = server.apply(new RecordedRequest("HTTP/1.1", HttpMethod.PATCH, path, headers,
                    new Buffer(edit.getBytes(StandardCharsets.UTF_8))));
            if (edited.code() / 100 != 2) {
                throw new IllegalStateException("the edit before the patch was refused: " + edited.code() + " "
                        + edited.getBody().readUtf8());
            }
            editsDone.put(path, edited.code());
        }
        if (answersToLose.remove(path) != null) {
            late.add(request);
            String status = JsonNodeFactory.instance.objectNode().put("apiVersion", "v1").put("kind", "Status")
                    .put("status", "Failure").put("reason", "Timeout").put("code", 504)
                    .put("message", "Timeout: request did not complete within the allotted timeout").toString();
            return new MockResponse().setResponseCode(504).setBody(status);
        }
        return null;
    }
}
