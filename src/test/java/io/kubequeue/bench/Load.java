package io.kubequeue.bench;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClass;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClassBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubequeue.quota.elastic.ElasticQuotaTree;

/**
 * One load: the quota tree, the PriorityClasses, and every job with the moment it is submitted. The same on
 * every run (no randomness); a new instance per run carries that run's observations ({@link JobRecord}).
 *
 * <ul>
 *   <li>{@code baseline}: an ElasticQuotaTree in {@code kube-system}: root (max 600 cpu) → 5 parents (max 120 cpu
 *       each) → 30 leaves (min 20, max 120 cpu; leaf {@code i} owns namespace {@code kq-bench-NN}, its parent is
 *       {@code i / 6}). Per leaf: 350 small Jobs (1 cpu, run 200 ms, priority 50, one every 100 ms), 100 medium
 *       (5 cpu, 500 ms, priority 100, one every 500 ms), 50 large (20 cpu, 1 s, priority 200, one every 1.2 s):
 *       15,000 suspended Jobs. Leaf {@code i}'s schedule of each class starts {@code i/30} of that class's interval
 *       after the first, so the 30 leaves' submissions are spread evenly rather than in bursts.</li>
 *   <li>{@code burst}: the same tree shape with room for every job at once, and 10,000 small Jobs spread evenly
 *       over the leaves, all submitted at time 0 (as fast as the server takes them).</li>
 * </ul>
 * {@code scale} multiplies every count (at least one job per class and leaf).
 */
final class Load {

    /** Label on every benchmark object: the load's name. */
    static final String LABEL_LOAD = "bench.kube-queue.io/load";
    /** Label on every benchmark Job: its class. */
    static final String LABEL_CLASS = "bench.kube-queue.io/class";
    static final int LEAVES = 30;
    static final int PARENTS = 5;
    static final String TREE_NAMESPACE = "kube-system";

    /**
     * A class of jobs.
     *
     * @param name      {@code small}, {@code medium}, {@code large}
     * @param cpu       the request of the Job's single pod
     * @param cpuMillis the same in millicores
     * @param runTime   how long the job runs once admitted (the runner completes it then)
     * @param priority  the value of its PriorityClass ({@code kq-bench-<name>})
     * @param perLeaf   how many of this class each leaf gets (baseline) or in all (burst)
     * @param interval  time between two submissions of this class in one leaf (zero: all at once)
     */
    record JobClass(String name, Quantity cpu, long cpuMillis, Duration runTime, int priority, int perLeaf,
                    Duration interval) {

        static JobClass of(String name, String cpu, Duration runTime, int priority, int count, Duration interval) {
            Quantity q = new Quantity(cpu);
            return new JobClass(name, q, millicores(q), runTime, priority, count, interval);
        }

        String priorityClassName() {
            return "kq-bench-" + name;
        }
    }

    /** The tree's limits in millicores: each leaf's min and max, each parent's max, the root's max. */
    record Limits(Quantity leafMin, Quantity leafMax, Quantity parentMax, Quantity rootMax) {
        long leafMaxMillis() {
            return millicores(leafMax);
        }

        long parentMaxMillis() {
            return millicores(parentMax);
        }

        long rootMaxMillis() {
            return millicores(rootMax);
        }
    }

    /**
     * One job: what is planned for it and, during a run, what was seen of it. Times are {@link System#nanoTime()}
     * readings, 0 until seen; they are written by the {@link Observer}'s handler thread only.
     */
    static final class JobRecord {
        final String namespace;
        final String name;
        final int leaf;
        final JobClass jobClass;
        /** When to submit it, after the run's first submission (nanoseconds). */
        final long offsetNanos;
        volatile long createdAt;
        volatile long admittedAt;
        volatile long finishedAt;
        /** Whether its request is counted in the observed usage now. */
        boolean charged;

        JobRecord(String namespace, String name, int leaf, JobClass jobClass, long offsetNanos) {
            this.namespace = namespace;
            this.name = name;
            this.leaf = leaf;
            this.jobClass = jobClass;
            this.offsetNanos = offsetNanos;
        }

        String key() {
            return namespace + "/" + name;
        }

        int parent() {
            return leaf * PARENTS / LEAVES;
        }
    }

    final String name;
    final Limits limits;
    final List<JobClass> classes;
    /** Every job, in submission order. */
    final List<JobRecord> jobs;
    final Map<String, JobRecord> byKey;

    private Load(String name, Limits limits, List<JobClass> classes, List<JobRecord> jobs) {
        this.name = name;
        this.limits = limits;
        this.classes = classes;
        jobs.sort(Comparator.comparingLong((JobRecord j) -> j.offsetNanos).thenComparing(JobRecord::key));
        this.jobs = jobs;
        this.byKey = new LinkedHashMap<>();
        jobs.forEach(j -> byKey.put(j.key(), j));
    }

    static Load named(String name, double scale) {
        return switch (name) {
            case "baseline" -> baseline(scale);
            case "burst" -> burst(scale);
            default -> throw new IllegalArgumentException("unknown load " + name);
        };
    }

    /** 15,000 × scale jobs in three classes, submitted over about a minute (see the class comment). */
    static Load baseline(double scale) {
        List<JobClass> classes = List.of(
                JobClass.of("small", "1", Duration.ofMillis(200), 50, count(350, scale), Duration.ofMillis(100)),
                JobClass.of("medium", "5", Duration.ofMillis(500), 100, count(100, scale), Duration.ofMillis(500)),
                JobClass.of("large", "20", Duration.ofSeconds(1), 200, count(50, scale), Duration.ofMillis(1200)));
        List<JobRecord> jobs = new ArrayList<>();
        for (int leaf = 0; leaf < LEAVES; leaf++) {
            for (JobClass c : classes) {
                long interval = c.interval().toNanos();
                for (int k = 0; k < c.perLeaf(); k++) {
                    long offset = leaf * interval / LEAVES + k * interval;
                    jobs.add(new JobRecord(namespace(leaf), String.format("%s-%02d-%04d", c.name(), leaf, k), leaf, c, offset));
                }
            }
        }
        return new Load("baseline", new Limits(new Quantity("20"), new Quantity("120"), new Quantity("120"),
                new Quantity("600")), classes, jobs);
    }

    /** 10,000 × scale small jobs, all submitted at once, under a tree with room for all of them. */
    static Load burst(double scale) {
        int total = Math.max(LEAVES, (int) Math.round(10_000 * scale));
        JobClass small = JobClass.of("small", "1", Duration.ofMillis(200), 50, total, Duration.ZERO);
        List<JobRecord> jobs = new ArrayList<>();
        for (int i = 0; i < total; i++) {
            int leaf = i % LEAVES;
            jobs.add(new JobRecord(namespace(leaf), String.format("burst-%02d-%05d", leaf, i / LEAVES), leaf, small, 0));
        }
        long perLeaf = (total + LEAVES - 1) / LEAVES * small.cpuMillis() / 1000;
        long leafMax = Math.max(1000, perLeaf);
        return new Load("burst", new Limits(new Quantity("20"), new Quantity(Long.toString(leafMax)),
                new Quantity(Long.toString(leafMax * LEAVES / PARENTS)), new Quantity(Long.toString(leafMax * LEAVES))),
                List.of(small), jobs);
    }

    private static int count(int full, double scale) {
        return Math.max(1, (int) Math.round(full * scale));
    }

    static String namespace(int leaf) {
        return String.format("kq-bench-%02d", leaf);
    }

    static List<String> namespaces() {
        List<String> all = new ArrayList<>();
        for (int leaf = 0; leaf < LEAVES; leaf++) {
            all.add(namespace(leaf));
        }
        return all;
    }

    /** A Kubernetes quantity of cpu in millicores, by fabric8's {@link Quantity} (exact, rounded up). */
    static long millicores(Quantity q) {
        return q.getNumericalAmount().movePointRight(3).setScale(0, java.math.RoundingMode.CEILING).longValueExact();
    }

    /** Millicores as a cpu quantity for printing, e.g. {@code 120} or {@code 0.5}. */
    static String cpu(long millis) {
        return BigDecimal.valueOf(millis).movePointLeft(3).stripTrailingZeros().toPlainString();
    }

    /** Creates the namespaces, the PriorityClasses and the ElasticQuotaTree (replacing an older tree). */
    void setUp(KubernetesClient client) {
        for (String ns : namespaces()) {
            if (client.namespaces().withName(ns).get() == null) {
                client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
                        .create();
            }
        }
        for (JobClass c : classes) {
            PriorityClass pc = new PriorityClassBuilder().withNewMetadata().withName(c.priorityClassName())
                    .addToLabels(LABEL_LOAD, name).endMetadata().withValue(c.priority())
                    .withDescription("kube-queue benchmark, class " + c.name()).build();
            client.scheduling().v1().priorityClasses().resource(pc).createOr(op -> op.update());
        }
        client.resource(tree()).inNamespace(TREE_NAMESPACE).createOr(op -> op.update());
    }

    /** The ElasticQuotaTree {@code kube-system/elasticquotatree}. */
    ElasticQuotaTree tree() {
        ElasticQuotaTree.Node root = node("root", null, null, limits.rootMax());
        root.setChildren(new ArrayList<>());
        for (int p = 0; p < PARENTS; p++) {
            ElasticQuotaTree.Node parent = node("parent-" + p, null, null, limits.parentMax());
            parent.setChildren(new ArrayList<>());
            root.getChildren().add(parent);
        }
        for (int leaf = 0; leaf < LEAVES; leaf++) {
            ElasticQuotaTree.Node node = node(String.format("leaf-%02d", leaf), List.of(namespace(leaf)), limits.leafMin(),
                    limits.leafMax());
            root.getChildren().get(leaf * PARENTS / LEAVES).getChildren().add(node);
        }
        ElasticQuotaTree tree = new ElasticQuotaTree();
        tree.setMetadata(new ObjectMetaBuilder().withName("elasticquotatree").withNamespace(TREE_NAMESPACE)
                .addToLabels(LABEL_LOAD, name).build());
        ElasticQuotaTree.Spec spec = new ElasticQuotaTree.Spec();
        spec.setRoot(root);
        tree.setSpec(spec);
        return tree;
    }

    private static ElasticQuotaTree.Node node(String name, List<String> namespaces, Quantity min, Quantity max) {
        ElasticQuotaTree.Node node = new ElasticQuotaTree.Node();
        node.setName(name);
        node.setNamespaces(namespaces);
        if (min != null) {
            node.setMin(Map.of("cpu", min));
        }
        node.setMax(Map.of("cpu", max));
        return node;
    }

    /**
     * The suspended Job as submitted: one pod ({@code parallelism} and {@code completions} 1) requesting the
     * class's cpu, with the class's PriorityClass; no annotations.
     */
    Job job(JobRecord r) {
        return new JobBuilder()
                .withNewMetadata().withName(r.name).withNamespace(r.namespace)
                .addToLabels(LABEL_LOAD, name).addToLabels(LABEL_CLASS, r.jobClass.name()).endMetadata()
                .withNewSpec().withSuspend(true).withParallelism(1).withCompletions(1).withBackoffLimit(0)
                .withNewTemplate().withNewSpec().withRestartPolicy("Never")
                .withPriorityClassName(r.jobClass.priorityClassName())
                .addNewContainer().withName("work").withImage("busybox:1.36")
                .withCommand("sleep", BigDecimal.valueOf(r.jobClass.runTime().toMillis()).movePointLeft(3).toPlainString())
                .withNewResources().addToRequests("cpu", r.jobClass.cpu()).endResources()
                .endContainer().endSpec().endTemplate().endSpec().build();
    }

    /** How many jobs of each class, e.g. {@code 10,500 small, 3,000 medium, 1,500 large}. */
    String describeCounts() {
        Map<String, Integer> counts = new LinkedHashMap<>();
        jobs.forEach(j -> counts.merge(j.jobClass.name(), 1, Integer::sum));
        List<String> parts = new ArrayList<>();
        counts.forEach((c, n) -> parts.add(String.format("%,d %s", n, c)));
        return String.join(", ", parts);
    }
}
