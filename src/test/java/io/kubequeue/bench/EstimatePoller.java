package io.kubequeue.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.kubequeue.bench.EstimateError.Sample;

/**
 * Reads kube-queue's start-time estimates while a run goes (issue 30, "Measured, not assumed"): one quota group's
 * pending jobs ({@code GET /api/v1/queues/{group}/jobs}, the read API opened to the harness with
 * {@code KUBE_QUEUE_READ_API_AUTHENTICATION=none}) every {@code interval}, round-robin over the load's leaves, and
 * keeps per job every {@code (seen at, eta, state)} read. Its reads are counted and timed, so the report can say
 * what they cost. Once every job has been submitted it also asks the what-if endpoint a few times
 * ({@code POST /api/v1/what-if}, the load's own tree as the body) and times the answers.
 *
 * <p>A build without the estimates answers the read without an {@code estimate} field (or without the what-if
 * endpoint: 404 or 405): the result says so, and the report prints "estimates: not served by this kube-queue".
 */
final class EstimatePoller implements AutoCloseable {

    /** How many times the what-if endpoint is asked at the end of the submissions. */
    static final int WHAT_IFS = 5;

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * What was read.
     *
     * @param samples         per job ({@code namespace/name}), its estimates in the order read
     * @param reads           reads sent
     * @param failures        reads without a 200 answer (status 0: no answer)
     * @param firstFailure    the first failed read, described, or null
     * @param bytes           bytes of the answers
     * @param readMillis      each read's answer time, ms
     * @param jobsRead        pending jobs in the answers, summed over the reads
     * @param withoutEstimate of them, those without an {@code estimate} object
     * @param whatIfMillis    each what-if's answer time, ms (200 answers only)
     * @param whatIfStatuses  each what-if's HTTP status (0: no answer)
     * @param whatIfPending   pending jobs in kube-queue's answer to the first what-if (its {@code jobs}), -1 if unread
     * @param whatIfRejected  the body of the first what-if answer that was not 200, or null
     */
    record Result(Map<String, List<Sample>> samples, long reads, long failures, String firstFailure, long bytes,
                  List<Double> readMillis, long jobsRead, long withoutEstimate, List<Double> whatIfMillis,
                  List<Integer> whatIfStatuses, int whatIfPending, String whatIfRejected) {

        /** Whether kube-queue served estimates: some pending job came with one. */
        boolean served() {
            return jobsRead > withoutEstimate;
        }

        /** Whether the what-if endpoint answered at all (not 404/405, not unreachable). */
        boolean whatIfServed() {
            return whatIfStatuses.stream().anyMatch(s -> s != 0 && s != 404 && s != 405);
        }
    }

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final String base;
    private final List<String> groups;
    private final long intervalNanos;
    private final BooleanSupplier submissionsDone;
    private final String tree;
    private final Thread thread;

    private final Map<String, List<Sample>> samples = new HashMap<>();
    private long reads;
    private long failures;
    private String firstFailure;
    private long bytes;
    private final List<Double> readMillis = new ArrayList<>();
    private long jobsRead;
    private long withoutEstimate;
    private final List<Double> whatIfMillis = new ArrayList<>();
    private final List<Integer> whatIfStatuses = new ArrayList<>();
    private int whatIfPending = -1;
    private String whatIfRejected;
    private volatile boolean stopped;

    /**
     * @param base            kube-queue's read API, e.g. {@code http://127.0.0.1:8080}
     * @param groups          the quota groups to read, round-robin
     * @param interval        between two reads
     * @param submissionsDone true once every job has been submitted and seen: the what-ifs go then
     * @param tree            the load's ElasticQuotaTree manifest (JSON), the what-if's body
     */
    EstimatePoller(String base, List<String> groups, Duration interval, BooleanSupplier submissionsDone, String tree) {
        this.base = base;
        this.groups = List.copyOf(groups);
        this.intervalNanos = interval.toNanos();
        this.submissionsDone = submissionsDone;
        this.tree = tree;
        this.thread = new Thread(this::run, "bench-estimate-poller");
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    private void run() {
        long next = System.nanoTime();
        boolean whatIfsDone = false;
        for (int i = 0; !stopped; i++) {
            read(groups.get(i % groups.size()));
            if (!whatIfsDone && submissionsDone.getAsBoolean()) {
                whatIfs();
                whatIfsDone = true;
                next = System.nanoTime();
            }
            next += intervalNanos;
            long wait;
            while (!stopped && (wait = next - System.nanoTime()) > 0) {
                try {
                    Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    private void read(String group) {
        long sent = System.nanoTime();
        Instant sentWall = Instant.now();
        HttpResponse<String> answer = send(HttpRequest.newBuilder(URI.create(base + "/api/v1/queues/" + group + "/jobs"))
                .timeout(Duration.ofSeconds(10)).GET().build());
        long took = System.nanoTime() - sent;
        synchronized (this) {
            reads++;
            readMillis.add(took / 1e6);
            if (answer == null || answer.statusCode() != 200) {
                failures++;
                if (firstFailure == null) {
                    firstFailure = "GET /api/v1/queues/" + group + "/jobs: " + (answer == null ? "no answer"
                            : answer.statusCode() + " " + abbreviate(answer.body()));
                }
                return;
            }
            bytes += answer.body().length();
            try {
                for (JsonNode job : JSON.readTree(answer.body())) {
                    jobsRead++;
                    JsonNode estimate = job.get("estimate");
                    if (estimate == null || !estimate.isObject()) {
                        withoutEstimate++;
                        continue;
                    }
                    String key = job.path("namespace").asText() + "/" + job.path("name").asText();
                    samples.computeIfAbsent(key, k -> new ArrayList<>(4))
                            .add(sample(estimate, sent, sentWall));
                }
            } catch (IOException | RuntimeException e) {
                failures++;
                if (firstFailure == null) {
                    firstFailure = "GET /api/v1/queues/" + group + "/jobs: unreadable answer (" + e + ")";
                }
            }
        }
    }

    /**
     * One estimate as read: its state and its ETA moved onto the harness's {@link System#nanoTime()} clock by the
     * wall clock read when the request was sent ({@code eta} is RFC 3339; kube-queue runs on the same machine).
     */
    static Sample sample(JsonNode estimate, long sentNanos, Instant sentWall) {
        String state = estimate.path("state").asText("MISSING");
        long eta = Long.MIN_VALUE;
        JsonNode text = estimate.get("eta");
        if (text != null && text.isTextual()) {
            try {
                eta = sentNanos + Duration.between(sentWall, Instant.parse(text.asText())).toNanos();
            } catch (DateTimeParseException | ArithmeticException e) {
                state = "UNREADABLE_ETA";
            }
        } else if (EstimateError.ESTIMATED.equals(state)) {
            state = "ESTIMATED_WITHOUT_ETA";
        }
        return new Sample(sentNanos, eta, state);
    }

    private void whatIfs() {
        String contentType = "application/json";
        for (int i = 0; i < WHAT_IFS && !stopped; i++) {
            long sent = System.nanoTime();
            HttpResponse<String> answer = send(HttpRequest.newBuilder(URI.create(base + "/api/v1/what-if"))
                    .timeout(Duration.ofSeconds(60)).header("Content-Type", contentType)
                    .POST(HttpRequest.BodyPublishers.ofString(tree, StandardCharsets.UTF_8)).build());
            long took = System.nanoTime() - sent;
            int status = answer == null ? 0 : answer.statusCode();
            synchronized (this) {
                whatIfStatuses.add(status);
                if (status == 200) {
                    whatIfMillis.add(took / 1e6);
                    if (whatIfPending < 0) {
                        whatIfPending = pendingIn(answer.body());
                    }
                } else if (whatIfRejected == null && answer != null) {
                    whatIfRejected = status + " " + abbreviate(answer.body());
                }
            }
            if (status == 415 && contentType.equals("application/json")) {
                contentType = "application/yaml"; // JSON is YAML: the same manifest, as the endpoint may want it
            } else if (status == 0 || status == 404 || status == 405) {
                return; // not served: asking again measures nothing
            }
        }
    }

    /** The size of a what-if answer's {@code jobs} array, or -1. */
    private static int pendingIn(String body) {
        try {
            JsonNode jobs = JSON.readTree(body).get("jobs");
            return jobs != null && jobs.isArray() ? jobs.size() : -1;
        } catch (IOException e) {
            return -1;
        }
    }

    private HttpResponse<String> send(HttpRequest request) {
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stopped = true;
            return null;
        }
    }

    private static String abbreviate(String body) {
        String one = body == null ? "" : body.replaceAll("\\s+", " ").trim();
        return one.length() > 200 ? one.substring(0, 200) + "…" : one;
    }

    /** What was read so far ({@link #close} first for all of it). */
    synchronized Result result() {
        return new Result(new TreeMap<>(samples), reads, failures, firstFailure, bytes, List.copyOf(readMillis),
                jobsRead, withoutEstimate, List.copyOf(whatIfMillis), List.copyOf(whatIfStatuses), whatIfPending,
                whatIfRejected);
    }

    @Override
    public void close() {
        stopped = true;
        thread.interrupt();
        try {
            thread.join(15_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
