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
 * <p>The tree's shape is the load's ({@link Tree}): leaf {@code i} owns namespace {@code kq-bench-NN} ({@code %02d}:
 * {@code kq-bench-00} … {@code kq-bench-999}, so the baseline's 30 are the large load's first 30), is named
 * {@code leaf-NN} and sits under parent {@code i × parents / leaves}. Where a load's parents and root are not
 * given by its own needs (the burst's), their max follows one rule: <b>a parent's max is the sum of its leaves'
 * mins, the root's max the sum of its parents' max</b> (baseline: 6 leaves × 20 = 120, 5 × 120 = 600; large:
 * 20 leaves × 20 = 400, 50 × 400 = 20,000), so a parent's leaves can all have their min at once and a busy leaf
 * borrows only what its siblings leave idle.
 *
 * <ul>
 *   <li>{@code baseline}: root (max 600 cpu) → 5 parents (max 120 cpu each) → 30 leaves (min 20, max 120 cpu).
 *       Per leaf: 350 small Jobs (1 cpu, run 200 ms, priority 50, one every 100 ms), 100 medium (5 cpu, 500 ms,
 *       priority 100, one every 500 ms), 50 large (20 cpu, 1 s, priority 200, one every 1.2 s): 15,000 suspended
 *       Jobs. Leaf {@code i}'s schedule of each class starts {@code i/30} of that class's interval after the first,
 *       so the 30 leaves' submissions are spread evenly rather than in bursts.</li>
 *   <li>{@code burst}: the same tree shape with room for every job at once, and 10,000 small Jobs spread evenly
 *       over the leaves, all submitted at time 0 (as fast as the server takes them).</li>
 *   <li>{@code large} (Kueue's large scheduler-perf baseline: 50,000 workloads in 1,000 queues): root (max 20,000)
 *       → 50 parents (max 400) → 1,000 leaves (min 20, max 120). Per leaf 50 Jobs in the baseline's classes and
 *       proportions (7 : 2 : 1: 35 small, 10 medium, 5 large): 50,000 Jobs. The tree as a whole submits at the
 *       baseline's pace (about 385 Jobs/s while all three classes run): each class's interval in a leaf is the
 *       baseline's × 1,000 / 30 (small 3.33 s, medium 16.7 s, large 40 s), spread over the leaves the same way,
 *       so the submissions span 200 s instead of 60.</li>
 *   <li>{@code backlog-B} ({@link #backlog}): the baseline (its tree, its 15,000 × scale Jobs on its schedule) plus
 *       one more branch, root → {@code parent-backlog} (max 20) → {@code leaf-backlog} (min 20, max 20, namespace
 *       {@code kq-bench-backlog}), and the root's max raised by those 20, so the baseline's groups have exactly
 *       their baseline room. In that leaf, before anything is measured: one <b>holder</b> Job of 20 cpu started
 *       outside kube-queue (its suspend annotation set, {@code spec.suspend} false: kube-queue charges it in full
 *       to its group and the job runner never finishes it), then {@code B} suspended Jobs in the baseline's three
 *       classes (7 : 2 : 1; 1, 5 and 20 cpu, their priorities). Each of them is within the leaf's max, so it is not
 *       held as never fitting: it is short at its leaf, which the holder keeps full, for the whole run (kueue#9715:
 *       admissible jobs behind many inadmissible ones). They are all created, and seen by the harness's watch,
 *       <b>before kube-queue starts</b>, so its start-up reads them and the measured window (the baseline's
 *       submissions) has the API server's writes to itself. {@code B} is not scaled.</li>
 * </ul>
 * {@code scale} multiplies every count of the measured jobs (at least one job per class and leaf).
 */
final class Load {

    /** Label on every benchmark object: the load's name. */
    static final String LABEL_LOAD = "bench.kube-queue.io/load";
    /** Label on every benchmark Job: its class. */
    static final String LABEL_CLASS = "bench.kube-queue.io/class";
    /** The annotation that marks a Job for kube-queue besides {@code spec.suspend} (docs/behaviour.md §1). */
    static final String SUSPEND_ANNOTATION = "scheduling.x-k8s.io/suspend";
    /**
     * The most leaves and parents of any load's tree: arrays indexed by leaf or parent that serve every load (the
     * reference admitter's usage) are sized by them. A load's own shape is its {@link #tree}.
     */
    static final int LEAVES = 1000;
    static final int PARENTS = 50;
    static final String TREE_NAMESPACE = "kube-system";
    /** The backlog load's extra group: its namespace and its cpu (its min, its max, and the holder's request). */
    static final String BACKLOG_NAMESPACE = "kq-bench-backlog";
    static final String BACKLOG_CPU = "20";
    /** The load names that {@link #named} takes, besides {@code backlog-B}. */
    static final List<String> NAMES = List.of("baseline", "burst", "large", "varied");
    /** The {@code varied} load's run times: log-normal around the class's run time with this sigma … */
    static final double VARIED_SIGMA = 1.0;
    /** … capped at this many times the class's run time. */
    static final double VARIED_CAP = 20.0;
    /** The {@code varied} load's seed: each job's draw is seeded by it and the job's name. */
    static final long VARIED_SEED = 30L;
    static final String BACKLOG = "backlog";

    /**
     * A class of jobs.
     *
     * @param name      {@code small}, {@code medium}, {@code large} (or {@code holder}, the backlog load's)
     * @param cpu       the request of the Job's single pod
     * @param cpuMillis the same in millicores
     * @param runTime   how long the job runs once admitted (the runner completes it then)
     * @param priority  the value of its PriorityClass ({@code kq-bench-<name>})
     * @param perLeaf   how many of this class each leaf gets (baseline, large) or in all (burst)
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

        JobClass withCount(int count, Duration newInterval) {
            return new JobClass(name, cpu, cpuMillis, runTime, priority, count, newInterval);
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

        /**
         * The rule of the class comment: parent max = leaves per parent × leaf min, root max = parents × parent max.
         */
        static Limits summed(int leaves, int parents, String leafMin, String leafMax) {
            long min = millicores(new Quantity(leafMin));
            long parentMax = min * (leaves / parents);
            return new Limits(new Quantity(leafMin), new Quantity(leafMax), new Quantity(cpu(parentMax)),
                    new Quantity(cpu(parentMax * parents)));
        }
    }

    /**
     * The tree's shape: {@code leaves} leaves under {@code parents} parents ({@code leaves} a multiple of
     * {@code parents}), and whether it has the backlog load's extra branch ({@code backlogMillis} &gt; 0). Usage
     * arrays have {@link #groups()} and {@link #parentGroups()} places: the extra branch, if any, is the last.
     */
    record Tree(int leaves, int parents, long backlogMillis) {

        Tree {
            if (leaves <= 0 || parents <= 0 || leaves % parents != 0 || leaves > LEAVES || parents > PARENTS) {
                throw new IllegalArgumentException("a tree of " + leaves + " leaves under " + parents + " parents");
            }
        }

        boolean hasBacklogGroup() {
            return backlogMillis > 0;
        }

        /** Places in a per-leaf array: the leaves, and the backlog group last. */
        int groups() {
            return leaves + (hasBacklogGroup() ? 1 : 0);
        }

        /** Places in a per-parent array: the parents, and the backlog group's parent last. */
        int parentGroups() {
            return parents + (hasBacklogGroup() ? 1 : 0);
        }

        /** The parent index of a leaf index (the backlog group's parent for the backlog group). */
        int parentOf(int leaf) {
            return leaf >= leaves ? parents : leaf * parents / leaves;
        }

        /** The namespaces of this tree's groups, leaf order, the backlog group's last. */
        List<String> namespaces() {
            List<String> all = new ArrayList<>();
            for (int leaf = 0; leaf < leaves; leaf++) {
                all.add(namespace(leaf));
            }
            if (hasBacklogGroup()) {
                all.add(BACKLOG_NAMESPACE);
            }
            return all;
        }
    }

    /** What a job is for in its load. */
    enum Role {
        /** Submitted on schedule in the measured window; the run ends when every one has finished. */
        MEASURED,
        /** Created before kube-queue starts, suspended, never to fit: must never be admitted. */
        BACKLOG,
        /** Created running (started outside kube-queue) before kube-queue starts; never finished by the runner. */
        HOLDER
    }

    /**
     * One job: what is planned for it and, during a run, what was seen of it. Times are {@link System#nanoTime()}
     * readings, 0 until seen; they are written by the {@link Observer}'s handler thread only.
     */
    static final class JobRecord {
        final String namespace;
        final String name;
        final int leaf;
        private final int parent;
        final JobClass jobClass;
        final Role role;
        /**
         * When to submit it, after the first submission of its {@link #phase} (nanoseconds).
         */
        final long offsetNanos;
        /**
         * Its submission phase: 0 for most loads; the {@code varied} load's second half is phase 1, submitted once
         * every job of phase 0 has been seen finished ({@link Submitter}).
         */
        final int phase;
        /** How long it runs once admitted (the runner completes it then): its class's, or its own draw. */
        final Duration runTime;
        volatile long createdAt;
        volatile long admittedAt;
        volatile long finishedAt;
        /** Whether its request is counted in the observed usage now. */
        boolean charged;

        JobRecord(String namespace, String name, int leaf, int parent, JobClass jobClass, Role role, long offsetNanos) {
            this(namespace, name, leaf, parent, jobClass, role, offsetNanos, 0, jobClass.runTime());
        }

        JobRecord(String namespace, String name, int leaf, int parent, JobClass jobClass, Role role, long offsetNanos,
                  int phase, Duration runTime) {
            this.namespace = namespace;
            this.name = name;
            this.leaf = leaf;
            this.parent = parent;
            this.jobClass = jobClass;
            this.role = role;
            this.offsetNanos = offsetNanos;
            this.phase = phase;
            this.runTime = runTime;
        }

        String key() {
            return namespace + "/" + name;
        }

        int parent() {
            return parent;
        }

        boolean measured() {
            return role == Role.MEASURED;
        }
    }

    final String name;
    final Tree tree;
    final Limits limits;
    final List<JobClass> classes;
    /** Every measured job, in submission order. */
    final List<JobRecord> jobs;
    /** The jobs created before kube-queue starts (the holder first, then the backlog); empty for most loads. */
    final List<JobRecord> background;
    /** Every job, measured or not, by {@code namespace/name}. */
    final Map<String, JobRecord> byKey;

    private Load(String name, Tree tree, Limits limits, List<JobClass> classes, List<JobRecord> jobs,
                 List<JobRecord> background) {
        this.name = name;
        this.tree = tree;
        this.limits = limits;
        this.classes = classes;
        jobs.sort(Comparator.comparingInt((JobRecord j) -> j.phase).thenComparingLong(j -> j.offsetNanos)
                .thenComparing(JobRecord::key));
        this.jobs = jobs;
        this.background = List.copyOf(background);
        this.byKey = new LinkedHashMap<>();
        jobs.forEach(j -> byKey.put(j.key(), j));
        background.forEach(j -> byKey.put(j.key(), j));
    }

    /**
     * @param name {@code baseline}, {@code burst}, {@code large} or {@code backlog-B} (B a whole number ≥ 0)
     * @throws IllegalArgumentException for any other name
     */
    static Load named(String name, double scale) {
        return switch (name) {
            case "baseline" -> baseline(scale);
            case "burst" -> burst(scale);
            case "large" -> large(scale);
            case "varied" -> varied(scale);
            default -> {
                int size = backlogSize(name);
                if (size < 0) {
                    throw new IllegalArgumentException("unknown load " + name);
                }
                yield backlog(size, scale);
            }
        };
    }

    /** The load name of the backlog load with {@code size} pending jobs: {@code backlog-<size>}. */
    static String backlogName(int size) {
        return BACKLOG + "-" + size;
    }

    /** B of a load named {@code backlog-B}, or -1 if the name is not one. */
    static int backlogSize(String name) {
        if (name.matches(BACKLOG + "-\\d{1,9}")) {
            return Integer.parseInt(name.substring(BACKLOG.length() + 1));
        }
        return -1;
    }

    /** The baseline's three classes at {@code scale} of its per-leaf counts, with the baseline's intervals. */
    private static List<JobClass> baselineClasses(double scale) {
        return List.of(
                JobClass.of("small", "1", Duration.ofMillis(200), 50, count(350, scale), Duration.ofMillis(100)),
                JobClass.of("medium", "5", Duration.ofMillis(500), 100, count(100, scale), Duration.ofMillis(500)),
                JobClass.of("large", "20", Duration.ofSeconds(1), 200, count(50, scale), Duration.ofMillis(1200)));
    }

    /** Every leaf's schedule of every class, leaf {@code i}'s starting {@code i / leaves} of the interval late. */
    private static List<JobRecord> scheduled(Tree tree, List<JobClass> classes) {
        List<JobRecord> jobs = new ArrayList<>();
        for (int leaf = 0; leaf < tree.leaves(); leaf++) {
            for (JobClass c : classes) {
                long interval = c.interval().toNanos();
                for (int k = 0; k < c.perLeaf(); k++) {
                    long offset = leaf * interval / tree.leaves() + k * interval;
                    jobs.add(new JobRecord(namespace(leaf), String.format("%s-%02d-%04d", c.name(), leaf, k), leaf,
                            tree.parentOf(leaf), c, Role.MEASURED, offset));
                }
            }
        }
        return jobs;
    }

    /** 15,000 × scale jobs in three classes, submitted over about a minute (see the class comment). */
    static Load baseline(double scale) {
        Tree tree = new Tree(30, 5, 0);
        List<JobClass> classes = baselineClasses(scale);
        return new Load("baseline", tree, Limits.summed(tree.leaves(), tree.parents(), "20", "120"), classes,
                scheduled(tree, classes), List.of());
    }

    /**
     * The baseline's tree, classes and jobs (15,000 × scale), each job's run time drawn ({@link #heavyTailed}:
     * log-normal, the class's run time its median, sigma {@value #VARIED_SIGMA}, capped at {@value #VARIED_CAP} ×),
     * in two phases: per leaf and class the first half of the baseline's jobs on the baseline's schedule (phase 0,
     * which warms up kube-queue's history of run times), then, once all of them have been seen finished, the second
     * half on the same schedule from its own start (phase 1, on which the estimates are measured).
     */
    static Load varied(double scale) {
        Tree tree = new Tree(30, 5, 0);
        List<JobClass> classes = baselineClasses(scale);
        List<JobRecord> jobs = new ArrayList<>();
        for (int leaf = 0; leaf < tree.leaves(); leaf++) {
            for (JobClass c : classes) {
                long interval = c.interval().toNanos();
                int half = (c.perLeaf() + 1) / 2;
                for (int k = 0; k < c.perLeaf(); k++) {
                    int phase = k < half ? 0 : 1;
                    long offset = leaf * interval / tree.leaves() + (k - phase * half) * interval;
                    String name = String.format("%s-%02d-%04d", c.name(), leaf, k);
                    jobs.add(new JobRecord(namespace(leaf), name, leaf, tree.parentOf(leaf), c, Role.MEASURED, offset,
                            phase, heavyTailed(c.runTime(), VARIED_SIGMA, VARIED_CAP, VARIED_SEED, name)));
                }
            }
        }
        return new Load("varied", tree, Limits.summed(tree.leaves(), tree.parents(), "20", "120"), classes, jobs,
                List.of());
    }

    /**
     * A heavy-tailed run time: {@code median × exp(sigma × Z)}, Z standard normal drawn from a generator seeded by
     * {@code seed} and {@code name} alone (the same job gets the same draw on every run and in every JVM),
     * capped at {@code cap × median}, at least a millisecond. Its median is {@code median}.
     */
    static Duration heavyTailed(Duration median, double sigma, double cap, long seed, String name) {
        java.util.SplittableRandom random = new java.util.SplittableRandom(seed * 0x9E3779B97F4A7C15L + stableHash(name));
        // Box-Muller: one standard normal from two uniforms (SplittableRandom has no nextGaussian before Java 17's
        // RandomGenerator default, whose algorithm is not specified across versions)
        double u1 = 1.0 - random.nextDouble();
        double u2 = random.nextDouble();
        double z = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
        double factor = Math.min(cap, Math.exp(sigma * z));
        return Duration.ofNanos(Math.max(1_000_000L, Math.round(median.toNanos() * factor)));
    }

    /** A hash of a name fixed by this code (String.hashCode is too, but its few bits spread poorly when mixed). */
    private static long stableHash(String name) {
        long h = 0xcbf29ce484222325L; // FNV-1a 64
        for (int i = 0; i < name.length(); i++) {
            h ^= name.charAt(i);
            h *= 0x100000001b3L;
        }
        return h;
    }

    /** How many jobs of phase 0 the load has: those submitted before the rest wait for (all of them, if one phase). */
    int firstPhaseJobs() {
        return (int) jobs.stream().filter(j -> j.phase == 0).count();
    }

    /**
     * Whether a job's start-time estimates count in the estimate-error figures: every job, except the {@code varied}
     * load's first phase (it warms up the history).
     */
    boolean estimatesCount(JobRecord job) {
        return job.measured() && (!name.equals("varied") || job.phase > 0);
    }

    /** 50,000 × scale jobs in 1,000 leaves, at the baseline's pace (see the class comment). */
    static Load large(double scale) {
        Tree tree = new Tree(1000, 50, 0);
        Tree baselineTree = new Tree(30, 5, 0);
        List<JobClass> classes = new ArrayList<>();
        for (JobClass c : baselineClasses(1)) {
            // a tenth of the baseline's jobs per leaf; the same pace for the whole tree
            Duration interval = c.interval().multipliedBy(tree.leaves()).dividedBy(baselineTree.leaves());
            classes.add(c.withCount(count(c.perLeaf() / 10, scale), interval));
        }
        return new Load("large", tree, Limits.summed(tree.leaves(), tree.parents(), "20", "120"), List.copyOf(classes),
                scheduled(tree, classes), List.of());
    }

    /**
     * The baseline at {@code scale} plus {@code size} jobs that cannot fit in one group, and its holder (see the
     * class comment). {@code size} 0 keeps the branch and the holder: the run to compare with.
     */
    static Load backlog(int size, double scale) {
        if (size < 0) {
            throw new IllegalArgumentException("a backlog of " + size + " jobs");
        }
        Quantity groupCpu = new Quantity(BACKLOG_CPU);
        Tree tree = new Tree(30, 5, millicores(groupCpu));
        List<JobClass> classes = baselineClasses(scale);
        Limits base = Limits.summed(tree.leaves(), tree.parents(), "20", "120");
        Limits limits = new Limits(base.leafMin(), base.leafMax(), base.parentMax(),
                new Quantity(cpu(base.rootMaxMillis() + tree.backlogMillis())));
        int leaf = tree.leaves();
        int parent = tree.parents();
        List<JobRecord> background = new ArrayList<>();
        JobClass holder = JobClass.of("holder", BACKLOG_CPU, Duration.ZERO, 200, 1, Duration.ZERO);
        background.add(new JobRecord(BACKLOG_NAMESPACE, "holder", leaf, parent, holder, Role.HOLDER, 0));
        // the baseline's proportions, 350 : 100 : 50
        int small = (int) Math.round(size * 0.7);
        int medium = (int) Math.round(size * 0.2);
        int[] counts = {small, medium, size - small - medium};
        for (int c = 0; c < classes.size(); c++) {
            for (int k = 0; k < counts[c]; k++) {
                background.add(new JobRecord(BACKLOG_NAMESPACE, String.format("backlog-%s-%06d", classes.get(c).name(), k),
                        leaf, parent, classes.get(c), Role.BACKLOG, 0));
            }
        }
        return new Load(backlogName(size), tree, limits, classes, scheduled(tree, classes), background);
    }

    /** 10,000 × scale small jobs, all submitted at once, under a tree with room for all of them. */
    static Load burst(double scale) {
        Tree tree = new Tree(30, 5, 0);
        int leaves = tree.leaves();
        int total = Math.max(leaves, (int) Math.round(10_000 * scale));
        JobClass small = JobClass.of("small", "1", Duration.ofMillis(200), 50, total, Duration.ZERO);
        List<JobRecord> jobs = new ArrayList<>();
        for (int i = 0; i < total; i++) {
            int leaf = i % leaves;
            jobs.add(new JobRecord(namespace(leaf), String.format("burst-%02d-%05d", leaf, i / leaves), leaf,
                    tree.parentOf(leaf), small, Role.MEASURED, 0));
        }
        long perLeaf = (total + leaves - 1) / leaves * small.cpuMillis() / 1000;
        long leafMax = Math.max(1000, perLeaf);
        return new Load("burst", tree, new Limits(new Quantity("20"), new Quantity(Long.toString(leafMax)),
                new Quantity(Long.toString(leafMax * leaves / tree.parents())),
                new Quantity(Long.toString(leafMax * leaves))), List.of(small), jobs, List.of());
    }

    private static int count(int full, double scale) {
        return Math.max(1, (int) Math.round(full * scale));
    }

    static String namespace(int leaf) {
        return String.format("kq-bench-%02d", leaf);
    }

    /**
     * Every namespace any load uses (the large load's 1,000, of which every other load's leaves are the first, and
     * the backlog group's): what a run on a cluster clears of the benchmark's Jobs before it starts.
     */
    static List<String> namespaces() {
        return new Tree(LEAVES, PARENTS, 1).namespaces();
    }

    /** Whether the reference admitter runs on this load (not on the backlog load, whose targets are its own). */
    boolean hasReference() {
        return !tree.hasBacklogGroup();
    }

    /** Max of a per-leaf place (the backlog group's for the last place of a tree with one), millicores. */
    long leafMaxMillis(int leaf) {
        return leaf >= tree.leaves() ? tree.backlogMillis() : limits.leafMaxMillis();
    }

    /** Max of a per-parent place, millicores. */
    long parentMaxMillis(int parent) {
        return parent >= tree.parents() ? tree.backlogMillis() : limits.parentMaxMillis();
    }

    /** Name of a per-leaf place, for messages. */
    String leafName(int leaf) {
        return leaf >= tree.leaves() ? "leaf-backlog" : String.format("leaf-%02d", leaf);
    }

    /** Name of a per-parent place, for messages. */
    String parentName(int parent) {
        return parent >= tree.parents() ? "parent-backlog" : "parent-" + parent;
    }

    /** How many backlog jobs (suspended, never to fit) the load has. */
    int backlogJobs() {
        return (int) background.stream().filter(j -> j.role == Role.BACKLOG).count();
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
        for (String ns : tree.namespaces()) {
            if (client.namespaces().withName(ns).get() == null) {
                client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
                        .create();
            }
        }
        Map<String, JobClass> used = new LinkedHashMap<>();
        classes.forEach(c -> used.put(c.name(), c));
        background.forEach(j -> used.putIfAbsent(j.jobClass.name(), j.jobClass));
        for (JobClass c : used.values()) {
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
        for (int p = 0; p < tree.parents(); p++) {
            ElasticQuotaTree.Node parent = node(parentName(p), null, null, limits.parentMax());
            parent.setChildren(new ArrayList<>());
            root.getChildren().add(parent);
        }
        for (int leaf = 0; leaf < tree.leaves(); leaf++) {
            ElasticQuotaTree.Node node = node(leafName(leaf), List.of(namespace(leaf)), limits.leafMin(),
                    limits.leafMax());
            root.getChildren().get(tree.parentOf(leaf)).getChildren().add(node);
        }
        if (tree.hasBacklogGroup()) {
            Quantity cpu = new Quantity(cpu(tree.backlogMillis()));
            ElasticQuotaTree.Node parent = node(parentName(tree.parents()), null, null, cpu);
            parent.setChildren(new ArrayList<>(List.of(node(leafName(tree.leaves()), List.of(BACKLOG_NAMESPACE), cpu, cpu))));
            root.getChildren().add(parent);
        }
        ElasticQuotaTree quotaTree = new ElasticQuotaTree();
        quotaTree.setMetadata(new ObjectMetaBuilder().withName("elasticquotatree").withNamespace(TREE_NAMESPACE)
                .addToLabels(LABEL_LOAD, name).build());
        ElasticQuotaTree.Spec spec = new ElasticQuotaTree.Spec();
        spec.setRoot(root);
        quotaTree.setSpec(spec);
        return quotaTree;
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
     * class's cpu, with the class's PriorityClass; no annotations. The backlog load's holder is instead running
     * from its creation: {@code spec.suspend} false with the suspend annotation, a job kube-queue did not admit
     * (docs/behaviour.md §3), charged in full to its group.
     */
    Job job(JobRecord r) {
        boolean holder = r.role == Role.HOLDER;
        JobBuilder job = new JobBuilder()
                .withNewMetadata().withName(r.name).withNamespace(r.namespace)
                .addToLabels(LABEL_LOAD, name).addToLabels(LABEL_CLASS, r.jobClass.name()).endMetadata();
        if (holder) {
            job.editMetadata().addToAnnotations(SUSPEND_ANNOTATION, "true").endMetadata();
        }
        return job.withNewSpec().withSuspend(!holder).withParallelism(1).withCompletions(1).withBackoffLimit(0)
                .withNewTemplate().withNewSpec().withRestartPolicy("Never")
                .withPriorityClassName(r.jobClass.priorityClassName())
                .addNewContainer().withName("work").withImage("busybox:1.36")
                .withCommand("sleep", BigDecimal.valueOf(r.runTime.toMillis()).movePointLeft(3).toPlainString())
                .withNewResources().addToRequests("cpu", r.jobClass.cpu()).endResources()
                .endContainer().endSpec().endTemplate().endSpec().build();
    }

    /**
     * How many jobs of each class, e.g. {@code 10,500 small, 3,000 medium, 1,500 large}, and the jobs created
     * before the run ({@code + 10,000 pending in leaf-backlog behind 1 holder}).
     */
    String describeCounts() {
        Map<String, Integer> counts = new LinkedHashMap<>();
        jobs.forEach(j -> counts.merge(j.jobClass.name(), 1, Integer::sum));
        List<String> parts = new ArrayList<>();
        counts.forEach((c, n) -> parts.add(String.format("%,d %s", n, c)));
        String measured = String.join(", ", parts);
        if (background.isEmpty()) {
            return measured;
        }
        return String.format("%s; before them %,d pending in %s behind %d holder of %s cpu", measured, backlogJobs(),
                leafName(tree.leaves()), background.size() - backlogJobs(), cpu(tree.backlogMillis()));
    }
}
