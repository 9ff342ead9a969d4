package io.kubequeue.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import io.kubequeue.scheduler.model.Admission;
import io.kubequeue.scheduler.model.AdmissionOutcome;
import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.CycleResult;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.JobPriority;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.scheduler.model.JobStatus;
import io.kubequeue.scheduler.model.PriorityClasses;
import io.kubequeue.scheduler.model.QuotaNode;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.scheduler.model.SchedulerSettings;
import io.kubequeue.scheduler.model.SchedulingPolicy;

/**
 * Property-based tests of the scheduler core (issues 4, 12): random quota trees, jobs, priorities and event
 * sequences (submit, cycle, finish, delete, re-suspend, tree change, restart, PriorityClass change, time; and
 * admissions left in flight, settled later, lost in an API outage and re-read, an edit or a delete-and-recreate
 * while an admission is in flight, a switch of the quota plugin across a restart), with a model of the cluster
 * (and of the API server applying each admission patch only to the object it names, still suspended) beside the
 * scheduler. After every step:
 * <ul>
 *   <li>no job is lost, none is both pending and admitted, and usage is exactly the sum of what is admitted
 *       (a suspended job is charged only while an admission decided for it is still unsettled);</li>
 *   <li>under the ResourceQuota plugin an admitted job is charged to its namespace, whatever its record says;</li>
 *   <li>an admission never takes a node's usage above its max (or, non-preemptible, above its min); only a
 *       tree shrink or a restart may leave a node above. The usage is as the node counts it: a group's
 *       started-outside charges count above it only as far as its max (non-preemptible ones, for the min check,
 *       its min) leaves room ({@code countedUsages});</li>
 *   <li>blocking queue: no job is admitted while a pending job ahead of it in its group is not;</li>
 *   <li>retry on release: the first job a cycle admits is the highest-priority, earliest job that fits;</li>
 * </ul>
 * and at the end, once every other job is gone, a job that fits the empty tree is admitted.
 */
class SchedulerPropertiesTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final String GPU = "nvidia.com/gpu";
    private static final int NAMESPACES = 6; // ns5 is never listed by a node
    private static final List<PriorityClasses> CLASS_VARIANTS = List.of(
            PriorityClasses.NONE,
            new PriorityClasses(Map.of("low", 1, "high", 10), null),
            new PriorityClasses(Map.of("low", 20, "high", 3), "low"));

    // ---- what is generated -----------------------------------------------------------------------------

    /** One tree node; a null limit is absent (unlimited there). */
    record NodeSpec(int parent, Long maxCpu, Long maxGpu, Long maxJobs, Long minCpu, Long minGpu) {
    }

    /** A tree: its nodes, and for each of ns0..ns4 the index of the node that lists it (-1: none). */
    record TreeSpec(List<NodeSpec> nodes, List<Integer> namespaceOwners) {

        /** The same limits as the ResourceQuota plugin would see them: one group per namespace that has a node. */
        QuotaTree buildPerNamespace() {
            List<QuotaNode> built = new ArrayList<>();
            for (int ns = 0; ns < namespaceOwners.size(); ns++) {
                int owner = namespaceOwners.get(ns);
                if (owner >= 0 && owner < nodes.size()) {
                    Map<String, Long> max = new HashMap<>();
                    put(max, "cpu", nodes.get(owner).maxCpu());
                    put(max, GPU, nodes.get(owner).maxGpu());
                    built.add(new QuotaNode("ns" + ns, null, List.of("ns" + ns), null, Resources.of(max)));
                }
            }
            return QuotaTree.perNamespace(built);
        }

        QuotaTree build() {
            List<QuotaNode> built = new ArrayList<>();
            for (int i = 0; i < nodes.size(); i++) {
                NodeSpec n = nodes.get(i);
                List<String> namespaces = new ArrayList<>();
                for (int ns = 0; ns < namespaceOwners.size(); ns++) {
                    if (namespaceOwners.get(ns) == i) {
                        namespaces.add("ns" + ns);
                    }
                }
                Map<String, Long> max = new HashMap<>();
                Map<String, Long> min = new HashMap<>();
                put(max, "cpu", n.maxCpu());
                put(max, GPU, n.maxGpu());
                put(max, Resources.MAX_JOBS, n.maxJobs());
                put(min, "cpu", n.minCpu() == null ? null : Math.min(n.minCpu(), n.maxCpu() == null ? n.minCpu() : n.maxCpu()));
                put(min, GPU, n.minGpu() == null ? null : Math.min(n.minGpu(), n.maxGpu() == null ? n.minGpu() : n.maxGpu()));
                String parent = n.parent() >= 0 && n.parent() < i ? "g" + n.parent() : null;
                built.add(new QuotaNode("g" + i, parent, namespaces, Resources.of(min), Resources.of(max)));
            }
            return new QuotaTree(built);
        }

        private static void put(Map<String, Long> map, String key, Long value) {
            if (value != null) {
                map.put(key, value);
            }
        }
    }

    /** A job to submit: cpu in millicores, whole GPUs, namespace index, a priority choice, a quota-name label. */
    record JobSpec(long cpu, long gpu, int namespace, int priorityChoice, boolean preemptible, int quotaLabel) {

        JobPriority priority() {
            return switch (priorityChoice) {
                case 1 -> JobPriority.ofClass("low");
                case 2 -> JobPriority.ofClass("high");
                case 3 -> JobPriority.of(1);
                case 4 -> JobPriority.of(5);
                case 5 -> new JobPriority("high", 2);
                case 6 -> JobPriority.of(Integer.MIN_VALUE);
                case 7 -> JobPriority.of(Integer.MAX_VALUE);
                default -> JobPriority.NONE;
            };
        }

        Resources request() {
            return Resources.of("cpu", cpu, GPU, gpu);
        }
    }

    enum OpType {
        SUBMIT, CYCLE, FINISH, DELETE, RESUSPEND, UNSUSPEND_BY_HAND, TREE, RESTART, CLASSES, ADVANCE,
        /** The API server answers one admission still in flight (or, in an outage, loses the answer). */
        SETTLE,
        /** kube-queue reads back one admission whose answer was lost. */
        RECHECK,
        /** A suspended job is edited (request, priority, quota label), maybe while its admission is in flight. */
        UPDATE,
        /** A job is deleted and created again under its name, maybe while its admission is in flight. */
        RECREATE,
        /** kube-queue restarts with the other QueueGroupPlugin. */
        PLUGIN
    }

    record Op(OpType type, int arg) {
    }

    record Scenario(SchedulingPolicy policy, List<TreeSpec> trees, List<JobSpec> jobs, List<Op> ops) {
    }

    @Provide
    Arbitrary<Scenario> scenarios() {
        Arbitrary<Long> limit = Arbitraries.integers().between(0, 8).map(i -> i == 0 ? null : i * 1000L);
        Arbitrary<Long> gpus = Arbitraries.integers().between(-1, 4).map(i -> i < 0 ? null : (long) i);
        Arbitrary<Long> maxJobs = Arbitraries.integers().between(-6, 3).map(i -> i < 0 ? null : (long) i);
        Arbitrary<NodeSpec> node = Combinators.combine(Arbitraries.integers().between(-1, 4), limit, gpus, maxJobs,
                limit, gpus).as(NodeSpec::new);
        Arbitrary<TreeSpec> tree = Combinators.combine(node.list().ofMinSize(1).ofMaxSize(5),
                Arbitraries.integers().between(-1, 4).list().ofSize(NAMESPACES - 1)).as(TreeSpec::new)
                .filter(t -> t.namespaceOwners().stream().filter(o -> o >= 0 && o < t.nodes().size()).count() >= 2);
        Arbitrary<JobSpec> job = Combinators.combine(
                Arbitraries.integers().between(0, 8).map(i -> i * 500L),
                Arbitraries.frequency(net.jqwik.api.Tuple.of(6, 0L), net.jqwik.api.Tuple.of(2, 1L),
                        net.jqwik.api.Tuple.of(1, 2L), net.jqwik.api.Tuple.of(1, 3L)),
                Arbitraries.integers().between(0, NAMESPACES - 1),
                Arbitraries.integers().between(0, 7),
                Arbitraries.of(true, true, false),
                Arbitraries.integers().between(-12, 4)).as(JobSpec::new);
        Arbitrary<Op> op = Combinators.combine(
                Arbitraries.frequencyOf(
                        net.jqwik.api.Tuple.of(8, Arbitraries.just(OpType.SUBMIT)),
                        net.jqwik.api.Tuple.of(6, Arbitraries.just(OpType.CYCLE)),
                        net.jqwik.api.Tuple.of(4, Arbitraries.just(OpType.FINISH)),
                        net.jqwik.api.Tuple.of(2, Arbitraries.just(OpType.DELETE)),
                        net.jqwik.api.Tuple.of(2, Arbitraries.just(OpType.RESUSPEND)),
                        net.jqwik.api.Tuple.of(1, Arbitraries.just(OpType.UNSUSPEND_BY_HAND)),
                        net.jqwik.api.Tuple.of(1, Arbitraries.just(OpType.TREE)),
                        net.jqwik.api.Tuple.of(1, Arbitraries.just(OpType.RESTART)),
                        net.jqwik.api.Tuple.of(1, Arbitraries.just(OpType.CLASSES)),
                        net.jqwik.api.Tuple.of(3, Arbitraries.just(OpType.ADVANCE)),
                        net.jqwik.api.Tuple.of(4, Arbitraries.just(OpType.SETTLE)),
                        net.jqwik.api.Tuple.of(2, Arbitraries.just(OpType.RECHECK)),
                        net.jqwik.api.Tuple.of(2, Arbitraries.just(OpType.UPDATE)),
                        net.jqwik.api.Tuple.of(1, Arbitraries.just(OpType.RECREATE)),
                        net.jqwik.api.Tuple.of(1, Arbitraries.just(OpType.PLUGIN))),
                Arbitraries.integers().between(0, 1000)).as(Op::new);
        return Combinators.combine(Arbitraries.of(SchedulingPolicy.class), tree.list().ofMinSize(1).ofMaxSize(3),
                job.list().ofMinSize(2).ofMaxSize(8), op.list().ofMinSize(20).ofMaxSize(120)).as(Scenario::new);
    }

    // ---- the cluster beside the scheduler --------------------------------------------------------------

    enum Phase { SUSPENDED, RUNNING }

    static final class ClusterJob {
        final JobKey key;
        final String uid;
        JobSpec spec;
        final Instant created;
        /** metadata.resourceVersion: every change to the job takes the cluster's next one. */
        long version;
        Phase phase = Phase.SUSPENDED;
        AdmissionRecord record;
        /** Started by hand (no record) before a restart: kube-queue cannot know it after (a documented limit). */
        boolean forgotten;
        /**
         * The newest record the job was suspended again under, as the running process saw it: a record up to it is
         * spent, and the job running under one was started past the queue (charged as started outside).
         */
        Instant spentUpTo;

        void spend(AdmissionRecord spent) {
            if (spent != null && !spent.startedOutside()) {
                Instant at = Instant.parse(spent.admittedAt());
                if (spentUpTo == null || at.isAfter(spentUpTo)) {
                    spentUpTo = at;
                }
            }
        }

        boolean runsUnderSpentRecord() {
            return phase == Phase.RUNNING && record != null && !record.startedOutside() && spentUpTo != null
                    && !Instant.parse(record.admittedAt()).isAfter(spentUpTo);
        }

        ClusterJob(JobKey key, String uid, JobSpec spec, Instant created) {
            this.key = key;
            this.uid = uid;
            this.spec = spec;
            this.created = created;
        }

        JobObservation observation() {
            JobObservation.Phase phase = this.phase == Phase.SUSPENDED ? JobObservation.Phase.QUEUED
                    : record != null ? JobObservation.Phase.ADMITTED : JobObservation.Phase.UNSUSPENDED_WITHOUT_RECORD;
            String label = spec.quotaLabel() >= 0 ? "g" + spec.quotaLabel() : null;
            return new JobObservation(key, uid, phase, spec.request(), spec.priority(), created, label, spec.preemptible(),
                    record, String.valueOf(version));
        }
    }

    private final class Run {
        final Scenario scenario;
        final MutableClock clock = new MutableClock(T0);
        final Map<JobKey, ClusterJob> cluster = new LinkedHashMap<>();
        Scheduler scheduler;
        QuotaTree tree;
        PriorityClasses classes = PriorityClasses.NONE;
        int nextId;
        /** Jobs whose admission was refused: they wait out their backoff (a release does not cut it short). */
        final java.util.Set<JobKey> refused = new java.util.HashSet<>();
        final List<String> log = new ArrayList<>();
        /** Admissions decided and not yet answered by the API server. */
        final List<Admission> inFlight = new ArrayList<>();
        /** Admissions whose answer was lost, and the job not read back yet. */
        final List<Admission> unconfirmed = new ArrayList<>();
        /** The job as it was when each admission was decided (an edit may follow while it is on its way). */
        final Map<AdmissionRecord, JobSpec> decidedSpec = new HashMap<>();
        /** Under the ResourceQuota plugin (one group per namespace) rather than the ElasticQuotaTree plugin. */
        boolean perNamespace;
        int treeIndex;
        long nextVersion = 1;

        Run(Scenario scenario) {
            this.scenario = scenario;
            tree = scenario.trees().get(0).build();
            restart();
        }

        QuotaTree currentTree() {
            TreeSpec spec = scenario.trees().get(treeIndex);
            return perNamespace ? spec.buildPerNamespace() : spec.build();
        }

        /** The job changed in the cluster: it takes the next resourceVersion. */
        void touch(ClusterJob job) {
            job.version = nextVersion++;
        }

        /**
         * A restart: the patches the old process had sent reach the API server or not (arg), with no one left to
         * hear the answer; the new process rebuilds everything from the cluster.
         */
        void restart(int arg) {
            List<Admission> lost = new ArrayList<>(inFlight);
            inFlight.clear();
            unconfirmed.clear();
            for (int i = 0; i < lost.size(); i++) {
                if ((arg >> i & 1) == 1) {
                    applyPatch(lost.get(i));
                }
            }
            restart();
        }

        void restart() {
            scheduler = new Scheduler(new SchedulerSettings(scenario.policy(), Duration.ofSeconds(1),
                    Duration.ofSeconds(20)), clock);
            scheduler.replaceTree(tree);
            scheduler.replacePriorityClasses(classes);
            for (ClusterJob job : cluster.values()) {
                job.forgotten |= job.phase == Phase.RUNNING && job.record == null;
                job.spentUpTo = null; // what the new process knows is spent: the record a suspended job carries
                if (job.phase == Phase.SUSPENDED) {
                    job.spend(job.record);
                }
                scheduler.observe(job.observation());
            }
        }

        void apply(Op op) {
            log.add(op.toString());
            switch (op.type()) {
                case SUBMIT -> {
                    JobSpec spec = scenario.jobs().get(op.arg() % scenario.jobs().size());
                    int id = nextId++;
                    ClusterJob job = new ClusterJob(new JobKey("Job", "ns" + spec.namespace(), "j" + id), "u" + id, spec,
                            T0.plusSeconds(id / 2)); // two jobs per second: creation ties are broken by name
                    touch(job);
                    cluster.put(job.key, job);
                    scheduler.observe(job.observation());
                }
                case CYCLE -> cycle(op.arg() % 5 == 0, op.arg() % 3 == 1);
                case SETTLE -> {
                    if (!inFlight.isEmpty()) {
                        Admission a = inFlight.remove(op.arg() % inFlight.size());
                        if (op.arg() % 4 == 1) {
                            readBack(a); // refused (409, 422, a webhook): not applied, read back
                        } else {
                            // in an outage the patch may not even have reached the API server
                            settle(a, op.arg() % 4 == 0, op.arg() % 8 != 4);
                        }
                    }
                }
                case RECHECK -> {
                    if (!unconfirmed.isEmpty()) {
                        Admission a = unconfirmed.remove(op.arg() % unconfirmed.size());
                        if (scheduler.admissionUnsettled(a.key(), a.record())) {
                            readBack(a);
                        }
                    }
                }
                case UPDATE -> pick(op.arg(), Phase.SUSPENDED).ifPresent(job -> {
                    job.spec = scenario.jobs().get(op.arg() % scenario.jobs().size());
                    touch(job);
                    scheduler.observe(job.observation());
                    Optional<Admission> lost = unconfirmed.stream().filter(a -> a.key().equals(job.key)
                            && a.uid().equals(job.uid) && a.record().equals(statuses().get(job.key).record())).findFirst();
                    if (lost.isPresent()) {
                        // a new copy while the answer is lost is the cue to read the job back at once
                        assertEquals(lost.map(Admission::record), scheduler.unconfirmedAdmission(job.key)
                                .map(Admission::record), job.key + " is offered for a read");
                        unconfirmed.remove(lost.get());
                        readBack(lost.get());
                        assertFalse(scheduler.admissionUnsettled(job.key, lost.get().record()));
                    }
                });
                case RECREATE -> pick(op.arg(), null).ifPresent(job -> {
                    cluster.remove(job.key);
                    if (op.arg() % 2 == 1) { // else the delete is never seen on its own, only the new object
                        scheduler.observe(JobObservation.finished(job.key, job.uid));
                    }
                    ClusterJob again = new ClusterJob(job.key, "u" + nextId++,
                            scenario.jobs().get(op.arg() % scenario.jobs().size()), job.created.plusSeconds(30));
                    touch(again);
                    cluster.put(again.key, again);
                    scheduler.observe(again.observation());
                });
                case PLUGIN -> {
                    refused.clear();
                    perNamespace = !perNamespace;
                    tree = currentTree();
                    restart(op.arg());
                }
                case FINISH, DELETE -> pick(op.arg(), op.type() == OpType.FINISH ? Phase.RUNNING : null).ifPresent(job -> {
                    touch(job);
                    cluster.remove(job.key);
                    scheduler.observe(JobObservation.finished(job.key, job.uid));
                });
                case RESUSPEND -> pick(op.arg(), Phase.RUNNING).ifPresent(job -> {
                    job.spend(job.record);
                    job.phase = Phase.SUSPENDED;
                    if (op.arg() % 2 == 1) {
                        job.record = null; // e.g. kubectl replace of the original manifest; else the record stays
                    }
                    job.forgotten = false;
                    touch(job);
                    scheduler.observe(job.observation());
                });
                case UNSUSPEND_BY_HAND -> pick(op.arg(), Phase.SUSPENDED).filter(job -> job.record == null).ifPresent(job -> {
                    job.phase = Phase.RUNNING; // kubectl patch suspend=false, past the queue
                    touch(job);
                    refused.remove(job.key);
                    scheduler.observe(job.observation());
                });
                case TREE -> {
                    refused.clear();
                    treeIndex = op.arg() % scenario.trees().size();
                    tree = currentTree();
                    scheduler.replaceTree(tree);
                }
                case RESTART -> {
                    refused.clear();
                    restart(op.arg());
                }
                case CLASSES -> {
                    classes = CLASS_VARIANTS.get(op.arg() % CLASS_VARIANTS.size());
                    scheduler.replacePriorityClasses(classes);
                }
                case ADVANCE -> clock.advance(Duration.ofMillis(op.arg() * 25L));
            }
            checkConsistency();
        }

        Optional<ClusterJob> pick(int arg, Phase phase) {
            List<ClusterJob> candidates = cluster.values().stream().filter(j -> phase == null || j.phase == phase).toList();
            return candidates.isEmpty() ? Optional.empty() : Optional.of(candidates.get(arg % candidates.size()));
        }

        CycleResult cycle() {
            return cycle(false, false);
        }

        /**
         * @param refused whether the API server refuses every admission patch of this cycle (409, 422 …)
         * @param leftInFlight whether the patches stay on their way, answered by later SETTLE steps
         */
        CycleResult cycle(boolean refused, boolean leftInFlight) {
            Map<JobKey, JobStatus> before = statuses();
            // a refused job whose backoff has expired is retried like any other from this cycle on
            this.refused.removeIf(k -> before.get(k) == null || before.get(k).retryAt() == null
                    || !before.get(k).retryAt().isAfter(clock.instant()));
            Map<String, Resources> usageBefore = countedUsages();
            Map<String, Resources> guaranteedBefore = countedUsages(true);
            CycleResult result = scheduler.schedule();
            for (Admission admission : result.admissions()) {
                ClusterJob job = cluster.get(admission.key());
                assertNotNull(job, "admitted a job the cluster does not have: " + admission.key());
                assertEquals(Phase.SUSPENDED, job.phase, "admitted a running job: " + admission.key());
            }
            checkNoOverAdmission(usageBefore, guaranteedBefore);
            if (scenario.policy() == SchedulingPolicy.BLOCKING_QUEUE) {
                checkNothingPassesABlockedHead(before, result);
            }
            if (scenario.policy() == SchedulingPolicy.RETRY_ON_RELEASE && !result.admissions().isEmpty()) {
                checkFirstAdmittedIsTheBestThatFits(before, usageBefore, guaranteedBefore, result);
            }
            for (Admission admission : result.admissions()) {
                ClusterJob job = cluster.get(admission.key());
                assertEquals(job.uid, admission.uid(), "the admission names the object it was decided for");
                decidedSpec.put(admission.record(), job.spec);
                if (refused) {
                    scheduler.settle(admission.key(), admission.record(), AdmissionOutcome.REFUSED); // the job stays suspended
                    this.refused.add(admission.key());
                } else if (leftInFlight) {
                    inFlight.add(admission);
                } else {
                    settle(admission, false, true);
                }
            }
            return result;
        }

        /**
         * The API server applies an admission patch only to the object of its uid, and only while it is suspended
         * (the test ops); returns whether it applied.
         */
        boolean applyPatch(Admission a) {
            ClusterJob job = cluster.get(a.key());
            if (job == null || !job.uid.equals(a.uid()) || job.phase != Phase.SUSPENDED) {
                return false;
            }
            job.phase = Phase.RUNNING;
            job.record = a.record();
            touch(job);
            return true;
        }

        /**
         * The API server answers one admission. In an outage the answer and the read-back are lost: the scheduler
         * is told the outcome is unknown, and a later RECHECK reads the job (the informer still brings an applied
         * patch's running copy).
         */
        void settle(Admission a, boolean outage, boolean reached) {
            boolean applied = reached && applyPatch(a);
            ClusterJob job = cluster.get(a.key());
            if (applied) {
                refused.remove(a.key());
                if (!outage) {
                    scheduler.settle(a.key(), a.record(), new AdmissionOutcome.Applied(String.valueOf(job.version)));
                }
                scheduler.observe(job.observation()); // the informer brings the running copy
            } else if (outage) {
                scheduler.settle(a.key(), a.record(), AdmissionOutcome.UNKNOWN);
                unconfirmed.add(a);
            } else {
                readBack(a);
            }
        }

        /** What the admission side does with the job as read after an answer that was not a plain success. */
        void readBack(Admission a) {
            ClusterJob job = cluster.get(a.key());
            if (job == null || !job.uid.equals(a.uid())) {
                scheduler.settle(a.key(), a.record(), AdmissionOutcome.GONE);
            } else if (job.phase == Phase.RUNNING && a.record().equals(job.record)) {
                scheduler.settle(a.key(), a.record(), new AdmissionOutcome.Applied(String.valueOf(job.version)));
            } else if (job.phase == Phase.RUNNING && job.record != null) {
                scheduler.settle(a.key(), a.record(), new AdmissionOutcome.TakenOver(job.record, String.valueOf(job.version)));
            } else if (job.phase == Phase.RUNNING) {
                scheduler.settle(a.key(), a.record(), new AdmissionOutcome.StartedByHand(String.valueOf(job.version)));
            } else {
                scheduler.settle(a.key(), a.record(), AdmissionOutcome.REFUSED);
                refused.add(a.key());
            }
        }

        /** The admission of this very object, with that record, that the API server has not settled yet. */
        Optional<Admission> outstanding(ClusterJob job, AdmissionRecord record) {
            return java.util.stream.Stream.concat(inFlight.stream(), unconfirmed.stream())
                    .filter(a -> a.key().equals(job.key) && a.uid().equals(job.uid) && a.record().equals(record))
                    .findFirst();
        }

        Map<JobKey, JobStatus> statuses() {
            Map<JobKey, JobStatus> all = new HashMap<>();
            for (JobStatus s : scheduler.jobs()) {
                all.put(s.key(), s);
            }
            return all;
        }

        Map<String, Resources> usages(java.util.function.Function<String, Resources> usage) {
            Map<String, Resources> all = new HashMap<>();
            for (QuotaNode node : tree.nodes()) {
                all.put(node.name(), usage.apply(node.name()));
            }
            return all;
        }

        /** No job lost, none in two states, usage exactly what the admitted jobs hold. */
        void checkConsistency() {
            // the per-group counts the views keep (issue 27) say what a walk over every job says
            assertEquals(scheduler.groupsByWalk(), scheduler.groups(), () -> "groups, after " + log);
            assertNull(scheduler.backoffWavesBroken(), "backoff waves and lone waiters keep their rules");
            Map<JobKey, JobStatus> statuses = statuses();
            assertEquals(cluster.values().stream().filter(j -> !j.forgotten).map(j -> j.key).collect(java.util.stream.Collectors.toSet()),
                    statuses.keySet(), "the scheduler knows exactly the jobs the cluster has");
            Map<String, Resources> expected = new HashMap<>();
            Map<String, Resources> expectedGuaranteed = new HashMap<>();
            for (ClusterJob job : cluster.values()) {
                JobStatus s = statuses.get(job.key);
                if (job.forgotten) {
                    continue;
                }
                JobSpec charged = job.spec;
                if (job.phase == Phase.SUSPENDED && s.state() == JobState.ADMITTED) {
                    Optional<Admission> decided = outstanding(job, s.record());
                    assertTrue(decided.isPresent(), job.key + " is suspended but admitted as " + s.record()
                            + ", and no such admission of it is on its way");
                    charged = decidedSpec.get(decided.get().record());
                    assertEquals(charged.request(), decided.get().request());
                }
                if (perNamespace && s.state() == JobState.ADMITTED) {
                    assertEquals(job.key.namespace(), s.group(), job.key + ": under the ResourceQuota plugin the"
                            + " group is the namespace, whatever the record says (" + s.record() + ")");
                }
                if (job.phase == Phase.RUNNING || s.state() == JobState.ADMITTED) {
                    assertEquals(JobState.ADMITTED, s.state(), job.key + " runs");
                    if (job.runsUnderSpentRecord()) {
                        // a late patch of a decision kube-queue moved on from, landing after the job queued again
                        assertTrue(s.record().startedOutside(), job.key + " runs under a spent record " + job.record
                                + ": " + s.record());
                    } else if (job.phase == Phase.RUNNING && job.record != null) {
                        assertEquals(job.record, s.record());
                    }
                    for (QuotaNode node : tree.pathToRoot(s.group())) {
                        Resources amount = charged.request().with(Resources.MAX_JOBS, 1);
                        expected.merge(node.name(), amount, Resources::plus);
                        if (!charged.preemptible()) {
                            expectedGuaranteed.merge(node.name(), amount, Resources::plus);
                        }
                    }
                } else {
                    assertTrue(s.state() != JobState.ADMITTED, job.key + " is suspended but admitted");
                    assertEquals(job.spec.request(), s.request(), job.key + " waits with the request it has now");
                }
            }
            for (QuotaNode node : tree.nodes()) {
                assertEquals(expected.getOrDefault(node.name(), Resources.NONE), scheduler.usage(node.name()),
                        "usage of " + node.name());
                assertEquals(expectedGuaranteed.getOrDefault(node.name(), Resources.NONE),
                        scheduler.guaranteedUsage(node.name()), "non-preemptible usage of " + node.name());
            }
        }

        /**
         * What each node counts as used (docs/behaviour.md §3, issue 25): its subtree's usage, less, for each group
         * below it, the part of that group's started-outside charges above that group's max. Worked out here from
         * the usage and the jobs' records, deepest groups first, apart from the ledger's incremental bookkeeping.
         */
        Map<String, Resources> countedUsages() {
            return countedUsages(false);
        }

        /**
         * As {@link #countedUsages()}; with {@code guaranteed}, the non-preemptible usage the min check counts: the
         * non-preemptible started-outside charges of a group count above it only up to its min.
         */
        Map<String, Resources> countedUsages(boolean guaranteed) {
            Map<String, Resources> raw = usages(guaranteed ? scheduler::guaranteedUsage : scheduler::usage);
            Map<String, Resources> outside = new HashMap<>();
            for (JobStatus s : statuses().values()) {
                if (s.state() == JobState.ADMITTED && s.record() != null && s.record().startedOutside()
                        && (!guaranteed || !cluster.get(s.key()).spec.preemptible())) {
                    outside.merge(s.group(), s.request().with(Resources.MAX_JOBS, 1), Resources::plus);
                }
            }
            Map<String, Resources> hiddenBelow = new HashMap<>();
            Map<String, Resources> counted = new HashMap<>();
            List<QuotaNode> deepestFirst = new ArrayList<>(tree.nodes());
            deepestFirst.sort(Comparator.comparingInt((QuotaNode n) -> tree.pathToRoot(n.name()).size()).reversed());
            for (QuotaNode node : deepestFirst) {
                Resources c = raw.get(node.name()).minus(hiddenBelow.getOrDefault(node.name(), Resources.NONE));
                counted.put(node.name(), c);
                Map<String, Long> above = new HashMap<>();
                Resources limit = guaranteed ? node.min() : node.max();
                outside.getOrDefault(node.name(), Resources.NONE).asMap().forEach((k, o) -> {
                    if (limit.has(k) && c.get(k) > limit.get(k)) {
                        above.put(k, Math.min(o, c.get(k) - limit.get(k)));
                    }
                });
                List<QuotaNode> path = tree.pathToRoot(node.name());
                for (QuotaNode ancestor : path.subList(1, path.size())) {
                    hiddenBelow.merge(ancestor.name(), Resources.of(above), Resources::plus);
                }
            }
            return counted;
        }

        void checkNoOverAdmission(Map<String, Resources> usageBefore, Map<String, Resources> guaranteedBefore) {
            Map<String, Resources> countedAfter = countedUsages();
            Map<String, Resources> guaranteedAfter = countedUsages(true);
            for (QuotaNode node : tree.nodes()) {
                exceedsOnlyIfAlreadyAbove(node.name(), "max", node.max(), usageBefore.get(node.name()),
                        countedAfter.get(node.name()));
                exceedsOnlyIfAlreadyAbove(node.name(), "min", node.min().with(Resources.MAX_JOBS, Long.MAX_VALUE),
                        guaranteedBefore.get(node.name()), guaranteedAfter.get(node.name()));
            }
        }

        void exceedsOnlyIfAlreadyAbove(String node, String what, Resources limit, Resources before, Resources after) {
            for (Map.Entry<String, Long> l : limit.asMap().entrySet()) {
                long now = after.get(l.getKey());
                assertTrue(now <= l.getValue() || now <= before.get(l.getKey()),
                        "an admission took " + node + " " + l.getKey() + " to " + now + " above its " + what + " "
                                + l.getValue() + " (was " + before.get(l.getKey()) + ")");
            }
        }

        void checkNothingPassesABlockedHead(Map<JobKey, JobStatus> before, CycleResult result) {
            Map<JobKey, JobStatus> after = statuses();
            List<JobKey> admitted = result.admissions().stream().map(Admission::key).toList();
            for (Admission a : result.admissions()) {
                JobStatus mine = before.get(a.key());
                for (JobStatus other : before.values()) {
                    boolean pendingInSameGroup = (other.state() == JobState.ACTIVE || other.state() == JobState.BACKOFF)
                            && a.record().group().equals(other.group());
                    if (pendingInSameGroup && order().compare(other, mine) < 0
                            && after.get(other.key()).state() != JobState.HELD) {
                        assertTrue(admitted.indexOf(other.key()) >= 0 && admitted.indexOf(other.key()) < admitted.indexOf(a.key()),
                                a.key() + " was admitted past " + other.key() + ", ahead of it in group " + other.group());
                    }
                }
            }
        }

        void checkFirstAdmittedIsTheBestThatFits(Map<JobKey, JobStatus> before, Map<String, Resources> usage,
                                                 Map<String, Resources> guaranteed, CycleResult result) {
            JobStatus best = before.values().stream()
                    .filter(s -> s.state() == JobState.ACTIVE || s.state() == JobState.BACKOFF)
                    .filter(s -> !(refused.contains(s.key()) && s.retryAt() != null && s.retryAt().isAfter(clock.instant())))
                    .filter(s -> fits(cluster.get(s.key()), s.group(), usage, guaranteed))
                    .min(order()).orElse(null);
            assertNotNull(best, "something was admitted although nothing fit");
            assertEquals(best.key(), result.admissions().get(0).key(),
                    "the first admission is the highest-priority, earliest job that fits");
        }

        Comparator<JobStatus> order() {
            return ((Comparator<JobStatus>) (a, b) -> Integer.compare(b.priority(), a.priority()))
                    .thenComparing(s -> cluster.get(s.key()).created)
                    .thenComparing(JobStatus::key);
        }

        /** The rule of docs/behaviour.md §3, written out independently of the scheduler. */
        boolean fits(ClusterJob job, String group, Map<String, Resources> usage, Map<String, Resources> guaranteed) {
            Resources request = job.spec.request().with(Resources.MAX_JOBS, 1);
            for (QuotaNode node : tree.pathToRoot(group)) {
                for (Map.Entry<String, Long> r : request.asMap().entrySet()) {
                    String k = r.getKey();
                    if (node.max().has(k) && usage.getOrDefault(node.name(), Resources.NONE).get(k) + r.getValue() > node.max().get(k)) {
                        return false;
                    }
                    if (!job.spec.preemptible() && !k.equals(Resources.MAX_JOBS) && node.min().has(k)
                            && guaranteed.getOrDefault(node.name(), Resources.NONE).get(k) + r.getValue() > node.min().get(k)) {
                        return false;
                    }
                }
            }
            return !tree.pathToRoot(group).isEmpty();
        }

        /** Every other job leaves; after the longest backoff, the one left is admitted if the empty tree has room. */
        void drainAndCheckLiveness() {
            while (!inFlight.isEmpty()) {
                settle(inFlight.remove(0), false, true);
            }
            for (Admission a : List.copyOf(unconfirmed)) {
                if (scheduler.admissionUnsettled(a.key(), a.record())) {
                    readBack(a);
                }
            }
            unconfirmed.clear();
            checkConsistency();
            Optional<ClusterJob> target = cluster.values().stream().filter(j -> j.phase == Phase.SUSPENDED).findFirst();
            if (target.isEmpty()) {
                return;
            }
            for (ClusterJob job : List.copyOf(cluster.values())) {
                if (job != target.get()) {
                    cluster.remove(job.key);
                    scheduler.observe(JobObservation.finished(job.key, job.uid));
                }
            }
            clock.advance(Duration.ofSeconds(21));
            cycle();
            ClusterJob job = target.get();
            String label = job.spec.quotaLabel() >= 0 ? "g" + job.spec.quotaLabel() : null;
            Optional<QuotaNode> group = tree.groupFor(job.key.namespace(), label);
            boolean fitsEmpty = group.isPresent() && fits(job, group.get().name(), Map.of(), Map.of());
            assertEquals(fitsEmpty, job.phase == Phase.RUNNING, job.key + " " + job.spec + " alone in tree: admitted iff it fits");
        }
    }

    @Property(tries = 2000, edgeCases = EdgeCasesMode.MIXIN)
    void invariantsHoldAfterEveryStep(@ForAll("scenarios") Scenario scenario) {
        Run run = new Run(scenario);
        try {
            for (Op op : scenario.ops()) {
                run.apply(op);
            }
            run.drainAndCheckLiveness();
        } catch (AssertionError e) {
            fail(e.getMessage() + "\nsteps: " + run.log, e);
        }
    }
}
