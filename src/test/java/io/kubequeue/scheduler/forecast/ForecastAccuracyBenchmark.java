package io.kubequeue.scheduler.forecast;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.TreeMap;

import io.kubequeue.scheduler.MutableClock;
import io.kubequeue.scheduler.Scheduler;
import io.kubequeue.scheduler.model.Admission;
import io.kubequeue.scheduler.model.AdmissionOutcome;
import io.kubequeue.scheduler.model.CycleResult;
import io.kubequeue.scheduler.model.FinishedRun;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.JobPriority;
import io.kubequeue.scheduler.model.QuotaNode;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.scheduler.model.SchedulerSettings;
import io.kubequeue.scheduler.model.SchedulingPolicy;

/**
 * How wrong the start-time estimates are with the cluster taken out (issue 30): the end-to-end benchmark's baseline
 * tree and classes (30 leaves of min 20 / max 120 cpu under 5 parents of max 120; small 1 cpu, medium 5, large 20, of
 * priorities 50, 100, 200, submitted every 100, 500 and 1,200 ms per leaf for 60 s) played in process on a fake
 * clock, every write applied at once and every run as long as the warmed history says (the class's run time plus
 * 150 ms). A refresh every 5 s; for each job its first estimate and its last one before its admission, as a signed
 * fraction of its wait (negative: the estimate was early). A benchmark command, not a test: it prints figures.
 *
 * <pre>./mvnw -q test-compile exec:java -Dexec.classpathScope=test -Dexec.mainClass=io.kubequeue.scheduler.forecast.ForecastAccuracyBenchmark -Dexec.args=RETRY_ON_RELEASE</pre>
 */
public final class ForecastAccuracyBenchmark {

    private ForecastAccuracyBenchmark() {
    }

    /** @param args the policy (a {@link SchedulingPolicy} name); RETRY_ON_RELEASE when none */
    public static void main(String[] args) {
        SchedulingPolicy policy = SchedulingPolicy.valueOf(args.length > 0 ? args[0] : "RETRY_ON_RELEASE");
        Instant t0 = Instant.parse("2026-01-01T00:00:00Z");
        MutableClock clock = new MutableClock(t0);
        Scheduler s = new Scheduler(new SchedulerSettings(policy, Duration.ofSeconds(1), Duration.ofSeconds(20)), clock);
        s.watchPods(k -> false);
        List<QuotaNode> nodes = new ArrayList<>();
        nodes.add(new QuotaNode("root", null, List.of(), null, Resources.of("cpu", 600_000L)));
        for (int p = 0; p < 5; p++) {
            nodes.add(new QuotaNode("parent-" + p, "root", List.of(), null, Resources.of("cpu", 120_000L)));
        }
        for (int g = 0; g < 30; g++) {
            nodes.add(new QuotaNode("leaf-" + g, "parent-" + (g / 6), List.of("ns-" + g), Resources.of("cpu", 20_000L),
                    Resources.of("cpu", 120_000L)));
        }
        s.replaceTree(new QuotaTree(nodes));
        long[][] classes = {{1000, 200, 100, 50}, {5000, 500, 500, 100}, {20000, 1000, 1200, 200}};
        TreeMap<Long, List<JobObservation>> arrivals = new TreeMap<>();
        Map<JobKey, Long> runMillis = new HashMap<>();
        int n = 0;
        for (int g = 0; g < 30; g++) {
            for (long[] c : classes) {
                for (long at = c[2] * g / 30; at < 60_000; at += c[2]) {
                    JobKey key = new JobKey("Job", "ns-" + g, "j" + n++);
                    runMillis.put(key, c[1] + 150);
                    arrivals.computeIfAbsent(at / 50 * 50, k -> new ArrayList<>()).add(new JobObservation(key, "u" + n,
                            JobObservation.Phase.QUEUED, Resources.of("cpu", c[0]), JobPriority.of((int) c[3]),
                            t0.plusMillis(at), null, true, null, "1"));
                }
            }
        }
        for (int i = 0; i < 40; i++) {
            for (int g = 0; g < 30; g++) {
                for (long[] c : classes) {
                    s.learn(new FinishedRun(new JobKey("Job", "ns-" + g, "old-" + i + "-" + c[0]), "leaf-" + g,
                            Resources.of("cpu", c[0]), t0.minusSeconds(100).minusMillis(c[1] + 150),
                            t0.minusSeconds(100)));
                }
            }
        }
        s.tuneEstimates(Duration.ZERO, Duration.ofDays(1), 200_000);
        PriorityQueue<Map.Entry<Long, JobKey>> ends = new PriorityQueue<>(Map.Entry.comparingByKey());
        Map<JobKey, Instant> submitted = new HashMap<>();
        Map<JobKey, Instant> admitted = new HashMap<>();
        Map<JobKey, Instant> first = new HashMap<>();
        Map<JobKey, Instant> last = new HashMap<>();
        long version = 2;
        long refreshNanos = 0;
        int refreshes = 0;
        for (long now = 0; now < 600_000; now += 50, clock.advance(Duration.ofMillis(50))) {
            for (JobObservation o : arrivals.getOrDefault(now, List.of())) {
                s.observe(o);
                submitted.put(o.key(), clock.instant());
            }
            while (!ends.isEmpty() && ends.peek().getKey() <= now) {
                s.observe(JobObservation.finished(ends.poll().getValue()));
            }
            for (int k = 0; k < 5; k++) {
                CycleResult r = s.schedule();
                for (Admission a : r.admissions()) {
                    s.settle(a.key(), a.record(), new AdmissionOutcome.Applied(Long.toString(version++)));
                    admitted.put(a.key(), clock.instant());
                    ends.add(Map.entry(now + runMillis.get(a.key()), a.key()));
                }
                if (r.isEmpty()) {
                    break;
                }
            }
            if (now % 5000 == 0) {
                long started = System.nanoTime();
                s.refreshEstimates();
                refreshNanos += System.nanoTime() - started;
                refreshes++;
                for (JobKey key : submitted.keySet()) {
                    if (!admitted.containsKey(key)) {
                        s.estimate(key).filter(e -> e.eta() != null).ifPresent(e -> {
                            first.putIfAbsent(key, e.eta());
                            last.put(key, e.eta());
                        });
                    }
                }
            }
        }
        System.out.printf("%s: %,d jobs, %,d admitted; %d refreshes, %.0f ms each on average%n", policy,
                submitted.size(), admitted.size(), refreshes, refreshNanos / 1e6 / refreshes);
        print("first estimate", first, submitted, admitted);
        print("last estimate before admission", last, submitted, admitted);
    }

    private static void print(String which, Map<JobKey, Instant> etas, Map<JobKey, Instant> submitted,
                              Map<JobKey, Instant> admitted) {
        List<Double> signed = new ArrayList<>();
        List<Double> absolute = new ArrayList<>();
        etas.forEach((key, eta) -> {
            Instant start = admitted.get(key);
            if (start != null) {
                double wait = Math.max(1000, Duration.between(submitted.get(key), start).toMillis());
                double error = Duration.between(start, eta).toMillis() / wait;
                signed.add(error);
                absolute.add(Math.abs(error));
            }
        });
        Collections.sort(signed);
        Collections.sort(absolute);
        System.out.printf("  %s (%,d jobs): |error| median %.0f %%, p90 %.0f %%; signed p10 %.0f %%, median %.0f %%,"
                        + " p90 %.0f %%%n", which, signed.size(), 100 * at(absolute, 0.5), 100 * at(absolute, 0.9),
                100 * at(signed, 0.1), 100 * at(signed, 0.5), 100 * at(signed, 0.9));
    }

    private static double at(List<Double> sorted, double q) {
        return sorted.isEmpty() ? Double.NaN : sorted.get((int) Math.min(sorted.size() - 1, q * sorted.size()));
    }
}
