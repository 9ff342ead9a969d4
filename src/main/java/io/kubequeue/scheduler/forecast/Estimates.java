package io.kubequeue.scheduler.forecast;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.kubequeue.scheduler.model.Estimate;
import io.kubequeue.scheduler.model.Explanation;
import io.kubequeue.scheduler.model.Hold;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.scheduler.model.JobStatus;
import io.kubequeue.scheduler.model.QuotaTree;

/**
 * Turns two replays of one state — every job at its median run time, and at its 90th percentile — into an
 * {@link Estimate} per pending job, with what each rests on.
 */
public final class Estimates {

    /** Jobs of unknown run time named in one estimate at most. */
    static final int UNKNOWN_NAMED = 3;

    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss'Z'")
            .withZone(ZoneOffset.UTC);

    /** What every estimate assumes: one instance shared by all. */
    static final Explanation ASSUMED = Explanation.of("every job ahead runs for its predicted time; no job of higher "
            + "priority arrives; no quota changes; admissions and evictions apply at once");

    private Estimates() {
    }

    /**
     * The estimate of every pending job of {@code jobs}.
     *
     * @param jobs    every job of the state both replays started from
     * @param tree    the quota groups of that state
     * @param typical the replay at median run times
     * @param late    the replay at 90th-percentile run times; null: none was run (a what-if's side under the change),
     *                and no estimate has an {@code etaLate}
     */
    public static Map<JobKey, Estimate> of(List<JobStatus> jobs, QuotaTree tree, Replay.Result typical,
                                           Replay.Result late) {
        Map<JobKey, String> groups = new HashMap<>();
        for (JobStatus job : jobs) {
            groups.put(job.key(), job.group());
        }
        Map<String, List<JobKey>> unknownByRoot = new HashMap<>();
        for (JobKey key : typical.unknownRuns()) {
            String group = groups.get(key);
            unknownByRoot.computeIfAbsent(group == null ? null : tree.rootOf(group), r -> new ArrayList<>()).add(key);
        }
        unknownByRoot.values().forEach(keys -> keys.sort(null));
        Map<JobKey, Estimate> out = new HashMap<>();
        Map<RunTimeHistory.Prediction, Explanation> runLines = new HashMap<>(); // alike jobs share one line
        for (JobStatus job : jobs) {
            if (job.state() != JobState.ADMITTED) {
                out.put(job.key(), one(job, tree, typical, late, groups, unknownByRoot, runLines));
            }
        }
        return out;
    }

    private static Estimate one(JobStatus job, QuotaTree tree, Replay.Result typical, Replay.Result late,
                                Map<JobKey, String> groups, Map<String, List<JobKey>> unknownByRoot,
                                Map<RunTimeHistory.Prediction, Explanation> runLines) {
        Instant at = typical.from();
        RunTimeHistory.Prediction own = typical.runTimes().get(job.key());
        Duration runsFor = own == null ? null : own.typical();
        List<Explanation> assumptions = new ArrayList<>();
        if (job.hold() != null && job.hold().kind() == Hold.Reason.NEVER_FITS) {
            assumptions.add(job.hold().reason());
            return new Estimate(Estimate.State.NEVER_FITS, null, null, runsFor, assumptions, at);
        }
        if (job.hold() != null && job.hold().kind() == Hold.Reason.NO_QUOTA_GROUP) {
            assumptions.add(job.hold().reason());
            return new Estimate(Estimate.State.NO_QUOTA_GROUP, null, null, runsFor, assumptions, at);
        }
        Instant eta = typical.starts().get(job.key());
        if (eta != null) {
            Instant lateStart = late == null ? null : late.starts().get(job.key());
            Instant etaLate = lateStart == null ? null : lateStart.isBefore(eta) ? eta : lateStart;
            assumptions.add(own == null ? Explanation.of(ownRunTime(null))
                    : runLines.computeIfAbsent(own, p -> Explanation.of(ownRunTime(p))));
            JobKey freedBy = typical.freedBy().get(job.key());
            if (freedBy != null) {
                Instant end = typical.ends().get(freedBy);
                assumptions.add(Explanation.of("starts once ").then(freedBy, groups.get(freedBy))
                        .then(" ends" + (end == null ? "" : " (expected " + CLOCK.format(end) + ")")));
            }
            if (etaLate == null && late != null) {
                assumptions.add(Explanation.of("at 90th-percentile run times it does not start before "
                        + CLOCK.format(late.reached()) + ", where that replay stopped: the late end is open"));
            }
            assumptions.add(ASSUMED);
            return new Estimate(Estimate.State.ESTIMATED, eta, etaLate, runsFor, assumptions, at);
        }
        if (typical.stop() != Replay.Stop.SETTLED) {
            assumptions.add(Explanation.of("not started within the replay's reach (until " + CLOCK.format(typical
                    .reached()) + ", " + typical.cycles() + " cycles)"));
            return new Estimate(Estimate.State.BEYOND_HORIZON, null, null, runsFor, assumptions, at);
        }
        String root = job.group() == null ? null : tree.rootOf(job.group());
        List<JobKey> unknown = unknownByRoot.getOrDefault(root, List.of());
        if (!unknown.isEmpty()) {
            Explanation waits = Explanation.of("waits on jobs whose run time is unknown (no history of alike jobs, no "
                    + "kube-queue/expected-duration, no activeDeadlineSeconds): ");
            List<JobKey> named = unknown.subList(0, Math.min(UNKNOWN_NAMED, unknown.size()));
            List<String> namedGroups = named.stream().map(groups::get).toList();
            waits = waits.then(Explanation.jobs(named, namedGroups));
            if (unknown.size() > named.size()) {
                waits = waits.then(" and " + (unknown.size() - named.size()) + " more");
            }
            assumptions.add(waits);
            return new Estimate(Estimate.State.UNKNOWN, null, null, runsFor, assumptions, at);
        }
        assumptions.add(Explanation.of("nothing the replay foresees frees its room: a quota group on its path admits "
                + "nothing now, or the room is used outside kube-queue (its reason says which)"));
        return new Estimate(Estimate.State.BLOCKED, null, null, runsFor, assumptions, at);
    }

    /** How the job's own run time is known, in one line. */
    static String ownRunTime(RunTimeHistory.Prediction own) {
        if (own == null || !own.known()) {
            return "its own run time is unknown (no history of alike jobs)";
        }
        String p50 = human(own.typical());
        return switch (own.source()) {
            case EXPECTED -> "runs for " + p50 + ", as its kube-queue/expected-duration says";
            case ALIKE -> "runs for about " + p50 + " (median of " + own.runs() + " alike runs; 90th percentile "
                    + human(own.late()) + ")";
            case KIND -> "runs for about " + p50 + " (median of " + own.runs() + " runs of its kind in its quota group, "
                    + "none of its request's shape)";
            case DEADLINE -> "runs for at most " + p50 + " (its activeDeadlineSeconds; no history)";
            case UNKNOWN -> "its own run time is unknown";
        };
    }

    /** A duration as people write it: 45s, 12m5s, 3h20m, 2d4h. */
    public static String human(Duration d) {
        Objects.requireNonNull(d, "d");
        long s = d.getSeconds();
        if (s < 60) {
            return s + "s";
        }
        if (s < 3600) {
            return s / 60 + "m" + (s % 60 == 0 ? "" : s % 60 + "s");
        }
        if (s < 86400) {
            return s / 3600 + "h" + (s % 3600 / 60 == 0 ? "" : s % 3600 / 60 + "m");
        }
        return s / 86400 + "d" + (s % 86400 / 3600 == 0 ? "" : s % 86400 / 3600 + "h");
    }
}
