package io.kubequeue.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.DryRun;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.JobPriority;
import io.kubequeue.scheduler.model.QuotaNode;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.scheduler.model.SchedulerSettings;

/**
 * Issue 25, build item 2, as a property: on trees that look like real ones (up to three levels; min and max on cpu,
 * memory and GPUs, each declared or not per group; groups over their max in one resource and under it in another),
 * with admitted jobs of known use, running jobs of unknown use (preemptible or not) and a probe job asking for some
 * of the resources, the core's "fits now" (its dry run) equals a model written apart from it:
 * <ul>
 *   <li>the probe's group admits nothing while a job of unknown use runs in it (and it declares a limit);</li>
 *   <li>at a node above, each child subtree counts as much as it could use: a group that holds a job of unknown use
 *       without bound, every group capped by its max, never less than its known use; a request for a resource left
 *       without bound does not fit.</li>
 * </ul>
 * Equality holds both ways: the core never admits past that worst case (safety), and holds nothing more (the part
 * the issue found broken: before, a job of unknown use anywhere held the root for everyone).
 */
class UnknownUsePropertiesTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final List<String> RESOURCES = List.of("cpu", "memory", "nvidia.com/gpu");

    /** A node: its parent's index (-1 at the root) and per resource its min and max (null: not declared). */
    record NodeSpec(int parent, Long[] min, Long[] max) {
    }

    /** A job charged at a node: its request per resource (0: not asked), whether its use is unknown, preemptible. */
    record JobSpec(int node, long[] request, boolean unknown, boolean preemptible) {
    }

    record Case(List<NodeSpec> nodes, List<JobSpec> charged, JobSpec probe) {
    }

    @Provide
    Arbitrary<Case> cases() {
        Arbitrary<Long> limit = Arbitraries.longs().between(0, 8).map(v -> v * 1000).injectNull(0.4);
        Arbitrary<Long[]> limits = limit.array(Long[].class).ofSize(RESOURCES.size());
        Arbitrary<NodeSpec> child = Combinators.combine(Arbitraries.integers().between(0, 3), limits, limits)
                .as(NodeSpec::new);
        Arbitrary<List<NodeSpec>> tree = Combinators.combine(limits, limits, child.list().ofMinSize(1).ofMaxSize(6))
                .as((rootMin, rootMax, children) -> {
                    List<NodeSpec> all = new ArrayList<>();
                    all.add(new NodeSpec(-1, rootMin, rootMax));
                    for (int i = 0; i < children.size(); i++) {
                        NodeSpec c = children.get(i);
                        all.add(new NodeSpec(Math.min(c.parent(), i), c.min(), c.max())); // parents come first
                    }
                    return all;
                });
        Arbitrary<long[]> request = Arbitraries.longs().between(0, 5).map(v -> v * 1000).array(long[].class)
                .ofSize(RESOURCES.size());
        Arbitrary<JobSpec> job = Combinators.combine(Arbitraries.integers().between(0, 6), request,
                Arbitraries.frequency(net.jqwik.api.Tuple.of(3, false), net.jqwik.api.Tuple.of(1, true)),
                Arbitraries.of(true, true, false)).as(JobSpec::new);
        return Combinators.combine(tree, job.list().ofMaxSize(8), job).as((nodes, charged, probe) -> new Case(nodes,
                charged.stream().map(j -> new JobSpec(j.node() % nodes.size(), j.request(), j.unknown(),
                        j.preemptible())).toList(),
                new JobSpec(probe.node() % nodes.size(), probe.request(), false, probe.preemptible())));
    }

    private static String name(int node) {
        return "n" + node;
    }

    private static Resources resources(Long[] amounts) {
        Map<String, Long> declared = new LinkedHashMap<>();
        for (int r = 0; r < RESOURCES.size(); r++) {
            if (amounts[r] != null) {
                declared.put(RESOURCES.get(r), amounts[r]);
            }
        }
        return declared.isEmpty() ? null : Resources.of(declared);
    }

    private static Resources request(long[] amounts) {
        Map<String, Long> asked = new LinkedHashMap<>();
        for (int r = 0; r < RESOURCES.size(); r++) {
            if (amounts[r] > 0) {
                asked.put(RESOURCES.get(r), amounts[r]);
            }
        }
        return Resources.of(asked);
    }

    @Property(tries = 3000)
    void fitsNowIsTheWorstCaseOfTheJobsOfUnknownUse(@ForAll("cases") Case c) {
        List<QuotaNode> nodes = new ArrayList<>();
        for (int i = 0; i < c.nodes().size(); i++) {
            NodeSpec n = c.nodes().get(i);
            nodes.add(new QuotaNode(name(i), n.parent() < 0 ? null : name(n.parent()), List.of("ns" + i),
                    resources(n.min()), resources(n.max())));
        }
        Scheduler scheduler = new Scheduler(SchedulerSettings.defaults(), new MutableClock(T0));
        scheduler.replaceTree(new QuotaTree(nodes));
        int i = 0;
        for (JobSpec j : c.charged()) {
            JobObservation o = new JobObservation(new JobKey("Job", "ns" + j.node(), "j" + i), "u" + i,
                    JobObservation.Phase.ADMITTED, j.unknown() ? Resources.NONE : request(j.request()),
                    JobPriority.NONE, T0, null, j.preemptible(), new AdmissionRecord(name(j.node()),
                    "2025-12-31T00:00:00.000Z"), "1");
            if (j.unknown()) {
                scheduler.observeUnreadable(o);
            } else {
                scheduler.observe(o);
            }
            i++;
        }
        JobSpec p = c.probe();
        JobObservation probe = new JobObservation(new JobKey("Job", "ns" + p.node(), "probe"), "probe",
                JobObservation.Phase.QUEUED, request(p.request()), JobPriority.NONE, T0, null, p.preemptible(), null,
                "2");
        boolean model = new Model(c, scheduler).fits(p);
        DryRun dryRun = scheduler.dryRun(probe);
        Statistics.label("fits").collect(model);
        Statistics.label("unknown jobs").collect(c.charged().stream().filter(JobSpec::unknown).count() > 0);
        assertEquals(model, dryRun.fitsNow(), () -> "core says " + dryRun.fitsNow() + " (" + dryRun.reason()
                + "), the worst-case model says " + model + "; tree " + describe(c));
    }

    private static String describe(Case c) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < c.nodes().size(); i++) {
            NodeSpec n = c.nodes().get(i);
            s.append(name(i)).append("<-").append(n.parent() < 0 ? "-" : name(n.parent())).append(" min ")
                    .append(java.util.Arrays.toString(n.min())).append(" max ").append(java.util.Arrays.toString(n.max()))
                    .append("; ");
        }
        for (JobSpec j : c.charged()) {
            s.append("job@").append(name(j.node())).append(j.unknown() ? " unknown" : " " + request(j.request()))
                    .append(j.preemptible() ? "" : " non-preemptible").append("; ");
        }
        return s.append("probe@").append(name(c.probe().node())).append(" ").append(request(c.probe().request()))
                .append(c.probe().preemptible() ? "" : " non-preemptible").toString();
    }

    /**
     * The worst case, worked out recursively over the whole tree (the core walks only the paths of the jobs of
     * unknown use): a subtree's possible use in a resource is what is known at its root, plus, if a job of unknown use
     * runs in it, as much as its own and its children's limits let it use.
     */
    private static final class Model {
        private final Case c;
        private final Scheduler scheduler;
        private final Map<Integer, List<Integer>> children = new HashMap<>();

        Model(Case c, Scheduler scheduler) {
            this.c = c;
            this.scheduler = scheduler;
            for (int i = 1; i < c.nodes().size(); i++) {
                children.computeIfAbsent(c.nodes().get(i).parent(), k -> new ArrayList<>()).add(i);
            }
        }

        /** Jobs of unknown use charged at this node (for the min check: the non-preemptible ones only). */
        private boolean unknownAt(int node, boolean guaranteed) {
            return c.charged().stream().anyMatch(j -> j.unknown() && j.node() == node && (!guaranteed || !j.preemptible()));
        }

        private boolean unknownIn(int node, boolean guaranteed) {
            return unknownAt(node, guaranteed)
                    || children.getOrDefault(node, List.of()).stream().anyMatch(k -> unknownIn(k, guaranteed));
        }

        private long known(int node, int r, boolean guaranteed) {
            long sum = 0;
            for (JobSpec j : c.charged()) {
                if (!j.unknown() && (!guaranteed || !j.preemptible()) && under(j.node(), node)) {
                    sum += j.request()[r];
                }
            }
            return sum;
        }

        private boolean under(int node, int ancestor) {
            for (int n = node; n >= 0; n = c.nodes().get(n).parent()) {
                if (n == ancestor) {
                    return true;
                }
            }
            return false;
        }

        /** What the subtree of {@code node} may use of resource r; Long.MAX_VALUE: without bound. */
        private long worst(int node, int r, boolean guaranteed) {
            long known = known(node, r, guaranteed);
            if (!unknownIn(node, guaranteed)) {
                return known;
            }
            long sum = unknownAt(node, guaranteed) ? Long.MAX_VALUE : known - children.getOrDefault(node, List.of())
                    .stream().mapToLong(k -> known(k, r, guaranteed)).sum();
            for (int k : children.getOrDefault(node, List.of())) {
                long w = worst(k, r, guaranteed);
                sum = sum > Long.MAX_VALUE - w ? Long.MAX_VALUE : sum + w;
            }
            Long max = c.nodes().get(node).max()[r];
            return Math.max(known, max == null ? sum : Math.min(sum, max));
        }

        boolean fits(JobSpec probe) {
            for (int n = probe.node(); n >= 0; n = c.nodes().get(n).parent()) {
                NodeSpec node = c.nodes().get(n);
                if (!checks(n, node.max(), probe, false)) {
                    return false;
                }
                if (!probe.preemptible() && !checks(n, node.min(), probe, true)) {
                    return false;
                }
            }
            return true;
        }

        /** The probe against one limit (max, or for a non-preemptible probe min) at one node on its path. */
        private boolean checks(int n, Long[] limit, JobSpec probe, boolean guaranteed) {
            boolean declares = java.util.Arrays.stream(limit).anyMatch(java.util.Objects::nonNull);
            if (declares && unknownAt(n, guaranteed)) {
                return false; // its own group's use is unknown
            }
            for (int r = 0; r < RESOURCES.size(); r++) {
                long asked = probe.request()[r];
                if (asked == 0 || limit[r] == null) {
                    continue;
                }
                long used = known(n, r, guaranteed);
                for (int k : children.getOrDefault(n, List.of())) {
                    long w = worst(k, r, guaranteed);
                    long extra = w == Long.MAX_VALUE ? Long.MAX_VALUE : w - known(k, r, guaranteed);
                    used = used > Long.MAX_VALUE - extra ? Long.MAX_VALUE : used + extra;
                }
                if (used == Long.MAX_VALUE || asked > limit[r] - used) {
                    return false;
                }
            }
            // the core's usage, which the model's known use must equal (no hidden charge)
            for (int r = 0; r < RESOURCES.size(); r++) {
                if (!guaranteed) {
                    assertEquals(known(n, r, false), scheduler.usage(name(n)).get(RESOURCES.get(r)));
                }
            }
            return true;
        }
    }
}
