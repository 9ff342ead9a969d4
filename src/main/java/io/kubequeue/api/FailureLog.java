package io.kubequeue.api;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.function.Consumer;

import io.kubequeue.collections.BoundedMaps;

/**
 * Logs a run of identical failures once per interval, not once per occurrence: the read API's reviews fail per
 * request while the API server is away, and one WARN line per request would bury everything else. The first
 * failure of a kind is written at once; the same kind again within the interval is only counted, and the next
 * line written for it says how many were not ("… (49 more like it in the last PT1M)"). A different kind of
 * failure is written at once. At most 64 kinds are remembered.
 */
final class FailureLog {

    private final Duration interval;
    private final Clock clock;
    private final Consumer<String> sink;
    private final Map<String, Run> runs = BoundedMaps.keepingRecentlyUsed(64);
    private int linesWritten;
    private String lastLine;

    /**
     * @param interval the least time between two lines of one kind
     * @param clock    the time
     * @param sink     where a line goes (a WARN logger)
     */
    FailureLog(Duration interval, Clock clock, Consumer<String> sink) {
        this.interval = interval;
        this.clock = clock;
        this.sink = sink;
    }

    /**
     * One failure.
     *
     * @param kind what identifies a run of the same failure (e.g. {@code TokenReview 500}); no per-request detail
     * @param line what to log for it
     */
    void failed(String kind, String line) {
        Instant now = clock.instant();
        String written;
        synchronized (runs) {
            Run run = runs.get(kind);
            if (run != null && now.isBefore(run.since.plus(interval))) {
                run.suppressed++;
                return;
            }
            written = run == null || run.suppressed == 0 ? line
                    : line + " (" + run.suppressed + " more like it in the last " + interval + ")";
            runs.put(kind, new Run(now));
            linesWritten++;
            lastLine = written;
        }
        sink.accept(written);
    }

    /** How many lines were written (for tests). */
    int linesWritten() {
        synchronized (runs) {
            return linesWritten;
        }
    }

    /** The last line written, or null (for tests). */
    String lastLine() {
        synchronized (runs) {
            return lastLine;
        }
    }

    private static final class Run {
        final Instant since;
        int suppressed;

        Run(Instant since) {
            this.since = since;
        }
    }
}
