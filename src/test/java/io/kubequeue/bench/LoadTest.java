package io.kubequeue.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.kubequeue.bench.Load.JobRecord;
import io.kubequeue.bench.Load.Role;
import io.kubequeue.quota.elastic.ElasticQuotaTree;

/** The loads' shapes (docs/performance.md, "The loads"): counts, trees, namespaces; no run, no timing. */
class LoadTest {

    /** Jobs per class name. */
    private static Map<String, Long> perClass(List<JobRecord> jobs) {
        return jobs.stream().collect(Collectors.groupingBy(j -> j.jobClass.name(), TreeMap::new, Collectors.counting()));
    }

    /** Jobs per leaf and class: {@code leaf → class → count}. */
    private static Map<Integer, Map<String, Long>> perLeaf(List<JobRecord> jobs) {
        return jobs.stream().collect(Collectors.groupingBy(j -> j.leaf, TreeMap::new,
                Collectors.groupingBy(j -> j.jobClass.name(), TreeMap::new, Collectors.counting())));
    }

    private static long millis(ElasticQuotaTree.Node node, String bound) {
        return Load.millicores((bound.equals("min") ? node.getMin() : node.getMax()).get("cpu"));
    }

    private static ElasticQuotaTree.Node child(ElasticQuotaTree.Node node, String name) {
        return node.getChildren().stream().filter(c -> c.getName().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void baselineKeepsItsShape() {
        Load load = Load.baseline(1);
        assertEquals(15_000, load.jobs.size());
        assertEquals(Map.of("large", 1_500L, "medium", 3_000L, "small", 10_500L), perClass(load.jobs));
        perLeaf(load.jobs).forEach((leaf, counts) ->
                assertEquals(Map.of("large", 50L, "medium", 100L, "small", 350L), counts, "leaf " + leaf));
        assertEquals(30, load.tree.leaves());
        assertEquals(5, load.tree.parents());
        assertEquals(120_000, load.limits.parentMaxMillis());
        assertEquals(600_000, load.limits.rootMaxMillis());
        assertEquals(120_000, load.limits.leafMaxMillis());
        assertEquals("kq-bench-00", load.tree.namespaces().get(0));
        assertEquals("kq-bench-29", load.tree.namespaces().get(29));
        assertEquals(30, load.tree.namespaces().size());
        JobRecord first = load.byKey.get("kq-bench-07/small-07-0003");
        assertEquals(1, first.parent(), "leaf 7 sits under parent 7 / 6");
        assertEquals(7 * 100_000_000L / 30 + 3 * 100_000_000L, first.offsetNanos);
        assertTrue(load.background.isEmpty());
        assertTrue(load.hasReference());
    }

    @Test
    void burstKeepsItsShape() {
        Load load = Load.burst(1);
        assertEquals(10_000, load.jobs.size());
        assertEquals(1_000_000, load.limits.leafMaxMillis());
        assertEquals(6_000_000, load.limits.parentMaxMillis());
        assertEquals(30_000_000, load.limits.rootMaxMillis());
        assertTrue(load.jobs.stream().allMatch(j -> j.offsetNanos == 0));
    }

    @Test
    void largeIsKueuesLargeBaseline() {
        Load load = Load.large(1);
        assertEquals(50_000, load.jobs.size());
        assertEquals(Map.of("large", 5_000L, "medium", 10_000L, "small", 35_000L), perClass(load.jobs));
        Map<Integer, Map<String, Long>> leaves = perLeaf(load.jobs);
        assertEquals(1_000, leaves.size());
        leaves.forEach((leaf, counts) ->
                assertEquals(Map.of("large", 5L, "medium", 10L, "small", 35L), counts, "leaf " + leaf));

        // the rule: a parent's max is the sum of its leaves' mins, the root's the sum of its parents' max
        assertEquals(1_000, load.tree.leaves());
        assertEquals(50, load.tree.parents());
        assertEquals(20_000, Load.millicores(load.limits.leafMin()));
        assertEquals(120_000, load.limits.leafMaxMillis());
        assertEquals(20 * 20_000, load.limits.parentMaxMillis());
        assertEquals(50 * 400_000L, load.limits.rootMaxMillis());

        ElasticQuotaTree.Node root = load.tree().getSpec().getRoot();
        assertEquals(20_000_000, millis(root, "max"));
        assertEquals(50, root.getChildren().size());
        Set<String> namespaces = new HashSet<>();
        for (int p = 0; p < 50; p++) {
            ElasticQuotaTree.Node parent = root.getChildren().get(p);
            assertEquals("parent-" + p, parent.getName());
            assertEquals(400_000, millis(parent, "max"));
            assertEquals(20, parent.getChildren().size(), parent.getName());
            for (ElasticQuotaTree.Node leaf : parent.getChildren()) {
                assertEquals(20_000, millis(leaf, "min"));
                assertEquals(120_000, millis(leaf, "max"));
                assertEquals(1, leaf.getNamespaces().size());
                assertTrue(namespaces.add(leaf.getNamespaces().get(0)), "a namespace in two leaves");
            }
        }
        assertEquals(Set.copyOf(load.tree.namespaces()), namespaces);
        // the baseline's namespaces are the large load's first 30, and every job is in its leaf's namespace
        assertEquals(Load.baseline(1).tree.namespaces(), load.tree.namespaces().subList(0, 30));
        assertEquals("kq-bench-999", load.tree.namespaces().get(999));
        for (JobRecord j : load.jobs) {
            assertEquals(Load.namespace(j.leaf), j.namespace);
            assertEquals(j.leaf / 20, j.parent());
        }
        assertEquals(Set.copyOf(Load.namespaces()).containsAll(namespaces), true, "a cluster run clears them all");
    }

    @Test
    void largeSubmitsAtTheBaselinesPace() {
        Load large = Load.large(1);
        Map<String, Duration> intervals = new LinkedHashMap<>();
        large.classes.forEach(c -> intervals.put(c.name(), c.interval()));
        // the baseline's intervals × 1,000 / 30: the tree as a whole submits as often as the baseline's
        assertEquals(Duration.ofMillis(100).multipliedBy(100).dividedBy(3), intervals.get("small"));
        assertEquals(Duration.ofMillis(500).multipliedBy(100).dividedBy(3), intervals.get("medium"));
        assertEquals(Duration.ofSeconds(40), intervals.get("large"));
        long last = large.jobs.get(large.jobs.size() - 1).offsetNanos;
        assertTrue(last < Duration.ofSeconds(200).toNanos() && last > Duration.ofSeconds(190).toNanos(), "last at " + last);
        // a class's submissions per second over the whole tree are the baseline's
        Load baseline = Load.baseline(1);
        for (int c = 0; c < 3; c++) {
            double baseRate = baseline.tree.leaves() / (double) baseline.classes.get(c).interval().toNanos();
            double largeRate = large.tree.leaves() / (double) large.classes.get(c).interval().toNanos();
            assertEquals(baseRate, largeRate, baseRate * 1e-6, baseline.classes.get(c).name());
        }
    }

    @Test
    void scaledLoadsKeepOneJobPerClassAndLeaf() {
        Load large = Load.large(0.01);
        perLeaf(large.jobs).forEach((leaf, counts) ->
                assertEquals(Map.of("large", 1L, "medium", 1L, "small", 1L), counts, "leaf " + leaf));
        assertEquals(1_000, perLeaf(large.jobs).size());
    }

    @Test
    void backlogIsTheBaselinePlusAGroupThatCannotFit() {
        Load load = Load.backlog(10_000, 1);
        assertEquals("backlog-10000", load.name);
        assertEquals(10_000, load.backlogJobs());
        List<JobRecord> backlog = load.background.stream().filter(j -> j.role == Role.BACKLOG).toList();
        List<JobRecord> holders = load.background.stream().filter(j -> j.role == Role.HOLDER).toList();
        assertEquals(1, holders.size());
        assertEquals(Map.of("large", 1_000L, "medium", 2_000L, "small", 7_000L), perClass(backlog));
        assertEquals(Role.HOLDER, load.background.get(0).role, "the holder is created first");

        // the other groups: the baseline's jobs, names and schedule
        Load baseline = Load.baseline(1);
        assertEquals(baseline.jobs.size(), load.jobs.size());
        for (int i = 0; i < baseline.jobs.size(); i += 97) {
            assertEquals(baseline.jobs.get(i).key(), load.jobs.get(i).key());
            assertEquals(baseline.jobs.get(i).offsetNanos, load.jobs.get(i).offsetNanos);
        }
        assertTrue(load.jobs.stream().allMatch(JobRecord::measured));

        // the tree: the baseline's, one more branch, and the root's max raised by exactly that branch
        ElasticQuotaTree.Node root = load.tree().getSpec().getRoot();
        assertEquals(6, root.getChildren().size());
        ElasticQuotaTree.Node parent = child(root, "parent-backlog");
        ElasticQuotaTree.Node leaf = child(parent, "leaf-backlog");
        assertEquals(List.of(Load.BACKLOG_NAMESPACE), leaf.getNamespaces());
        long leafMax = millis(leaf, "max");
        assertEquals(leafMax, millis(leaf, "min"), "at its min, the group lends nothing and cannot reclaim");
        assertEquals(leafMax, millis(parent, "max"));
        assertEquals(600_000 + leafMax, millis(root, "max"));
        for (int p = 0; p < 5; p++) {
            assertEquals(120_000, millis(child(root, "parent-" + p), "max"));
        }

        // never fits: the holder fills the leaf, and every backlog job would go over its max; yet each one alone
        // fits an empty leaf, so it is short at its leaf rather than held as never fitting
        long holder = holders.get(0).jobClass.cpuMillis();
        assertEquals(leafMax, holder);
        for (JobRecord j : backlog) {
            assertEquals(Load.BACKLOG_NAMESPACE, j.namespace);
            assertTrue(holder + j.jobClass.cpuMillis() > leafMax, j.key());
            assertTrue(j.jobClass.cpuMillis() <= leafMax, j.key());
            assertEquals(load.tree.leaves(), j.leaf);
            assertEquals(load.tree.parents(), j.parent());
        }
        assertFalse(load.hasReference());
        assertTrue(load.tree.namespaces().contains(Load.BACKLOG_NAMESPACE));
        assertTrue(Load.namespaces().contains(Load.BACKLOG_NAMESPACE));
    }

    @Test
    void theHolderRunsFromItsCreationAndTheBacklogIsSuspended() {
        Load load = Load.backlog(10, 1);
        Job holder = load.job(load.background.get(0));
        assertEquals(Boolean.FALSE, holder.getSpec().getSuspend());
        assertEquals("true", holder.getMetadata().getAnnotations().get(Load.SUSPEND_ANNOTATION));
        assertEquals("20", holder.getSpec().getTemplate().getSpec().getContainers().get(0).getResources()
                .getRequests().get("cpu").toString());
        for (JobRecord r : load.background.subList(1, load.background.size())) {
            Job job = load.job(r);
            assertEquals(Boolean.TRUE, job.getSpec().getSuspend(), r.key());
            assertTrue(job.getMetadata().getAnnotations() == null || job.getMetadata().getAnnotations().isEmpty());
        }
        assertEquals(Map.of("large", 1L, "medium", 2L, "small", 7L),
                perClass(load.background.stream().filter(j -> j.role == Role.BACKLOG).toList()));
    }

    @Test
    void backlogOfNoneKeepsTheHolder() {
        Load load = Load.named("backlog-0", 0.1);
        assertEquals(0, load.backlogJobs());
        assertEquals(1, load.background.size());
        assertEquals(Load.baseline(0.1).jobs.size(), load.jobs.size());
    }

    @Test
    void backlogSizeIsNotScaled() {
        assertEquals(100_000, Load.backlog(100_000, 0.05).backlogJobs());
    }

    @Test
    void loadNames() {
        assertEquals(1234, Load.named("backlog-1234", 0.05).backlogJobs());
        assertEquals(-1, Load.backlogSize("backlog-x"));
        assertEquals(-1, Load.backlogSize("baseline"));
        assertThrows(IllegalArgumentException.class, () -> Load.named("backlog-", 1));
        assertThrows(IllegalArgumentException.class, () -> Load.named("huge", 1));
        assertEquals("large", Load.named("large", 0.01).name);
    }
}
