package io.kubequeue.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.kubequeue.bench.Load.JobRecord;

/**
 * The harness's own watch on the benchmark's Jobs: the one clock of every figure. In the order the API server
 * sends its events, it records per Job when it was first seen (created), seen admitted ({@code spec.suspend}
 * false) and seen finished (condition {@code Complete} or {@code Failed} True), keeps the cpu in use per quota
 * group, and tells its {@link Listener}s (the job runner, the reference admitter).
 *
 * <p><b>Usage</b> (millicores): a Job counts against its leaf, its parent and the root from the event that shows
 * it admitted to the event that shows it finished (or deleted). Since the events come in the server's order, this
 * is the server's own state of admitted, unfinished jobs at every instant; any moment at which a group's usage
 * exceeds its max is an <b>excess</b>, and fails the run.
 */
final class Observer implements ResourceEventHandler<Job>, AutoCloseable {

    /** Told of each Job's transitions, on the observer's event thread: must return at once. */
    interface Listener {
        /** First seen, suspended. */
        default void queued(JobRecord job) {
        }

        /** First seen with {@code spec.suspend} false. */
        default void admitted(JobRecord job) {
        }

        /** First seen finished (or deleted) after having been admitted. */
        default void finished(JobRecord job) {
        }
    }

    private final Load load;
    private final List<Listener> listeners = new ArrayList<>();
    private final KubernetesClient client;
    private SharedIndexInformer<Job> informer;

    // usage, millicores, per place of the load's tree (Load.Tree#groups); written under this object's lock
    private final long[] leafUsed;
    private final long[] parentUsed;
    private long rootUsed;
    private final long[] leafPeak;
    private final long[] parentPeak;
    private long rootPeak;
    private long excessEvents;
    private final List<String> excesses = new ArrayList<>();

    private int created;
    private int admitted;
    private int finished;
    private long firstCreated;
    private long lastAdmitted;
    private long lastFinished;
    private final CountDownLatch allFinished;
    private final CountDownLatch allCreated;
    private final CountDownLatch allAdmitted;
    /** The jobs created before the run (holder, backlog): seen created, and backlog jobs seen admitted. */
    private final CountDownLatch backgroundCreated;
    private int backlogAdmitted;
    private String firstBacklogAdmitted;

    Observer(KubernetesClient client, Load load) {
        this.client = client;
        this.load = load;
        this.allFinished = new CountDownLatch(load.jobs.size());
        this.allCreated = new CountDownLatch(load.jobs.size());
        this.allAdmitted = new CountDownLatch(load.jobs.size());
        this.backgroundCreated = new CountDownLatch(load.background.size());
        this.leafUsed = new long[load.tree.groups()];
        this.leafPeak = new long[load.tree.groups()];
        this.parentUsed = new long[load.tree.parentGroups()];
        this.parentPeak = new long[load.tree.parentGroups()];
    }

    void addListener(Listener listener) {
        listeners.add(listener);
    }

    /** Starts the watch (all namespaces, the load's label) and waits for its first list. */
    void start() {
        informer = client.batch().v1().jobs().inAnyNamespace().withLabel(Load.LABEL_LOAD, load.name).inform(this, 0);
        try {
            informer.start().toCompletableFuture().get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("the harness's watch on Jobs did not start: " + e, e);
        }
    }

    @Override
    public void onAdd(Job job) {
        seen(job, false);
    }

    @Override
    public void onUpdate(Job before, Job job) {
        seen(job, false);
    }

    @Override
    public void onDelete(Job job, boolean deletedFinalStateUnknown) {
        seen(job, true);
    }

    private synchronized void seen(Job job, boolean deleted) {
        JobRecord r = load.byKey.get(job.getMetadata().getNamespace() + "/" + job.getMetadata().getName());
        if (r == null) {
            return;
        }
        long now = System.nanoTime();
        if (!r.measured()) {
            background(r, job, deleted, now);
            return;
        }
        if (r.createdAt == 0) {
            r.createdAt = now;
            if (created++ == 0) {
                firstCreated = now;
            }
            allCreated.countDown();
            if (!deleted && suspended(job) && !finished(job)) {
                listeners.forEach(l -> l.queued(r));
            }
        }
        if (!deleted && !suspended(job) && r.admittedAt == 0) {
            r.admittedAt = now;
            admitted++;
            lastAdmitted = now;
            allAdmitted.countDown();
            charge(r);
            listeners.forEach(l -> l.admitted(r));
        }
        if ((deleted || finished(job)) && r.finishedAt == 0 && r.admittedAt != 0) {
            r.finishedAt = now;
            finished++;
            notifyAll(); // a phase of the submitter may wait for it (awaitFinished)
            lastFinished = now;
            release(r);
            allFinished.countDown();
            listeners.forEach(l -> l.finished(r));
        }
    }

    /**
     * A job created before the run: counted apart from the measured ones. The holder is charged from the event that
     * shows it running, as any job; a backlog job seen admitted is counted (it must never fit) and charged too, so
     * an excess it causes is seen.
     */
    private void background(JobRecord r, Job job, boolean deleted, long now) {
        if (r.createdAt == 0) {
            r.createdAt = now;
            backgroundCreated.countDown();
            if (!deleted && suspended(job) && !finished(job)) {
                listeners.forEach(l -> l.queued(r));
            }
        }
        if (!deleted && !suspended(job) && r.admittedAt == 0) {
            r.admittedAt = now;
            if (r.role == Load.Role.BACKLOG && backlogAdmitted++ == 0) {
                firstBacklogAdmitted = r.key();
            }
            charge(r);
            listeners.forEach(l -> l.admitted(r));
        }
        if ((deleted || finished(job)) && r.finishedAt == 0 && r.admittedAt != 0) {
            r.finishedAt = now;
            release(r);
        }
    }

    private static boolean suspended(Job job) {
        return job.getSpec() != null && Boolean.TRUE.equals(job.getSpec().getSuspend());
    }

    private static boolean finished(Job job) {
        if (job.getStatus() == null || job.getStatus().getConditions() == null) {
            return false;
        }
        for (JobCondition c : job.getStatus().getConditions()) {
            if (("Complete".equals(c.getType()) || "Failed".equals(c.getType())) && "True".equals(c.getStatus())) {
                return true;
            }
        }
        return false;
    }

    private void charge(JobRecord r) {
        long cpu = r.jobClass.cpuMillis();
        r.charged = true;
        leafUsed[r.leaf] += cpu;
        parentUsed[r.parent()] += cpu;
        rootUsed += cpu;
        leafPeak[r.leaf] = Math.max(leafPeak[r.leaf], leafUsed[r.leaf]);
        parentPeak[r.parent()] = Math.max(parentPeak[r.parent()], parentUsed[r.parent()]);
        rootPeak = Math.max(rootPeak, rootUsed);
        check(load.leafName(r.leaf), leafUsed[r.leaf], load.leafMaxMillis(r.leaf), r);
        check(load.parentName(r.parent()), parentUsed[r.parent()], load.parentMaxMillis(r.parent()), r);
        check("root", rootUsed, load.limits.rootMaxMillis(), r);
    }

    private void check(String group, long used, long max, JobRecord r) {
        if (used > max) {
            excessEvents++;
            if (excesses.size() < 5) {
                excesses.add(String.format("%s at %s cpu > max %s when %s was admitted", group, Load.cpu(used),
                        Load.cpu(max), r.key()));
            }
        }
    }

    private void release(JobRecord r) {
        if (!r.charged) {
            return;
        }
        long cpu = r.jobClass.cpuMillis();
        r.charged = false;
        leafUsed[r.leaf] -= cpu;
        parentUsed[r.parent()] -= cpu;
        rootUsed -= cpu;
    }

    /** Waits until every job has been seen finished; false on timeout. */
    boolean awaitAllFinished(long timeoutNanos) throws InterruptedException {
        return allFinished.await(timeoutNanos, TimeUnit.NANOSECONDS);
    }

    /**
     * Waits until at least {@code jobs} measured jobs have been seen finished (the {@code varied} load's second phase
     * waits for the first); its {@link Submitter.Barrier}.
     */
    synchronized boolean awaitFinished(int jobs) throws InterruptedException {
        while (finished < jobs) {
            wait();
        }
        return true;
    }

    /** Waits until every job created before the run (holder, backlog) has been seen; false on timeout. */
    boolean awaitBackgroundCreated(long timeoutNanos) throws InterruptedException {
        return backgroundCreated.await(timeoutNanos, TimeUnit.NANOSECONDS);
    }

    /** Backlog jobs seen admitted (each one a failure of the load: they cannot fit), and the first, or null. */
    synchronized int backlogAdmitted() {
        return backlogAdmitted;
    }

    synchronized String firstBacklogAdmitted() {
        return firstBacklogAdmitted;
    }

    /** Waits until every measured job has been seen created; false on timeout. */
    boolean awaitAllCreated(long timeoutNanos) throws InterruptedException {
        return allCreated.await(timeoutNanos, TimeUnit.NANOSECONDS);
    }

    /** Waits until every job has been seen admitted; false on timeout. */
    boolean awaitAllAdmitted(long timeoutNanos) throws InterruptedException {
        return allAdmitted.await(timeoutNanos, TimeUnit.NANOSECONDS);
    }

    /** The counts and usage now. */
    synchronized Snapshot snapshot() {
        // the peaks of the tree's own leaves and parents (the backlog group's are not the load's figures)
        return new Snapshot(created, admitted, finished, firstCreated, lastAdmitted, lastFinished,
                Arrays.copyOf(leafPeak, load.tree.leaves()), Arrays.copyOf(parentPeak, load.tree.parents()), rootPeak,
                excessEvents, List.copyOf(excesses));
    }

    /**
     * What was seen so far.
     *
     * @param created      measured jobs seen at all (the jobs created before the run are not counted here)
     * @param admitted     measured jobs seen admitted
     * @param finished     measured jobs seen finished after admission
     * @param firstCreated nanoTime of the first job seen
     * @param lastAdmitted nanoTime of the latest admission seen
     * @param lastFinished nanoTime of the latest completion seen
     * @param leafPeak     highest cpu in use per leaf of the tree (millicores; the backlog group left out)
     * @param parentPeak   highest cpu in use per parent (millicores; the backlog group's left out)
     * @param rootPeak     highest cpu in use at the root (millicores; the holder included)
     * @param excessEvents admissions after which some group was above its max
     * @param excesses     the first few of them, described
     */
    record Snapshot(int created, int admitted, int finished, long firstCreated, long lastAdmitted, long lastFinished,
                    long[] leafPeak, long[] parentPeak, long rootPeak, long excessEvents, List<String> excesses) {
    }

    @Override
    public void close() {
        if (informer != null) {
            informer.close();
        }
    }
}
