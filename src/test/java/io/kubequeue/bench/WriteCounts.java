package io.kubequeue.bench;

import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The writes the embedded server has received, by client and {@link WriteKind}. Each client says who it is: the
 * harness's own clients by their User-Agent ({@value #AGENT_PREFIX}{@code <client>}, set by
 * {@link ApiServer#newClient(String)}), kube-queue's process by the bearer token the benchmark gives it
 * ({@link ApiServer#KUBE_QUEUE_TOKEN}); anything else is {@value #UNKNOWN}.
 */
final class WriteCounts {

    static final String AGENT_PREFIX = "kube-queue-bench/";
    static final String KUBE_QUEUE = "kube-queue";
    static final String REFERENCE = "reference";
    static final String HARNESS = "harness";
    static final String PROBE = "probe";
    static final String UNKNOWN = "unknown";

    private final Map<String, AtomicLongArray> byClient = new ConcurrentHashMap<>();

    /**
     * Who sent a request.
     *
     * @param userAgent     its {@code User-Agent} header, or null
     * @param authorization its {@code Authorization} header, or null
     */
    static String clientOf(String userAgent, String authorization) {
        if (userAgent != null && userAgent.startsWith(AGENT_PREFIX) && userAgent.length() > AGENT_PREFIX.length()) {
            return userAgent.substring(AGENT_PREFIX.length());
        }
        if (("Bearer " + ApiServer.KUBE_QUEUE_TOKEN).equals(authorization)) {
            return KUBE_QUEUE;
        }
        return UNKNOWN;
    }

    void count(String client, WriteKind kind) {
        byClient.computeIfAbsent(client, c -> new AtomicLongArray(WriteKind.ALL.size())).incrementAndGet(kind.ordinal());
    }

    /** The counts now. */
    Tally tally() {
        Map<String, Map<WriteKind, Long>> copy = new TreeMap<>();
        byClient.forEach((client, counts) -> {
            Map<WriteKind, Long> kinds = new EnumMap<>(WriteKind.class);
            for (WriteKind k : WriteKind.ALL) {
                kinds.put(k, counts.get(k.ordinal()));
            }
            copy.put(client, kinds);
        });
        return new Tally(copy);
    }

    /**
     * Writes by client and kind, at one moment or between two ({@link #since}).
     *
     * @param byClient client → kind → writes; every kind present for each client
     */
    record Tally(Map<String, Map<WriteKind, Long>> byClient) {

        static final Tally NONE = new Tally(Map.of());

        /** The writes counted since {@code earlier} (a tally of the same server). */
        Tally since(Tally earlier) {
            Map<String, Map<WriteKind, Long>> diff = new LinkedHashMap<>();
            byClient.forEach((client, kinds) -> {
                Map<WriteKind, Long> d = new EnumMap<>(WriteKind.class);
                for (WriteKind k : WriteKind.ALL) {
                    d.put(k, kinds.getOrDefault(k, 0L) - earlier.of(client, k));
                }
                diff.put(client, d);
            });
            return new Tally(diff);
        }

        long of(String client, WriteKind kind) {
            Map<WriteKind, Long> kinds = byClient.get(client);
            return kinds == null ? 0 : kinds.getOrDefault(kind, 0L);
        }

        /** Every write of one client. */
        long of(String client) {
            Map<WriteKind, Long> kinds = byClient.get(client);
            return kinds == null ? 0 : kinds.values().stream().mapToLong(Long::longValue).sum();
        }

        /** Every write of every client. */
        long total() {
            return byClient.keySet().stream().mapToLong(this::of).sum();
        }

        /** The clients that wrote, in name order. */
        List<String> clients() {
            return byClient.keySet().stream().filter(c -> of(c) > 0).sorted().toList();
        }
    }
}
