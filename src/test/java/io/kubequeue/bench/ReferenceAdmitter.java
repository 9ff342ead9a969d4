package io.kubequeue.bench;

import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.kubequeue.bench.Load.JobRecord;

/**
 * The reference: an ideal admitter inside the harness, against which kube-queue is measured. It sees the Jobs
 * through the harness's own watch ({@link Observer}) and keeps its jobs in lanes, each in priority order (priority
 * descending, then first seen, then name). After every change (a job queued, a job finished) it runs a cycle on its
 * own thread: of the lanes' heads it takes the highest, admits it if its cpu fits under its leaf's, its parent's and
 * the root's max (charging it at once), and otherwise closes that lane for the cycle, until no head is left.
 *
 * <p>Two modes, one per policy it is compared with ({@link Policy#reference()}):
 * <ul>
 * <li><b>blocking</b> ({@code StrictPriority=true}): one lane per leaf, so nothing passes a leaf's head;</li>
 * <li><b>passing</b> ({@code StrictConsistency=true}, "lower-priority jobs may still be admitted when higher ones
 * do not fit", docs/policies.md): one lane per leaf and job class, so a smaller job passes a head that does not fit,
 * and a job never passes one of its own size (which would not fit either).</li>
 * </ul> Each admission is one JSON Patch ({@code test} + {@code replace} of
 * {@code /spec/suspend}) sent without blocking, at most N in flight ({@link JobWriter}); a refused patch hands the
 * charge back and queues the job again. The charge is released when the job is seen finished.
 *
 * <p>No batch window, no backoff, no read before writing: what a queue of this shape cannot do better.
 */
final class ReferenceAdmitter implements Observer.Listener, AutoCloseable {

    private static final Comparator<JobRecord> ORDER = Comparator
            .comparingInt((JobRecord j) -> -j.jobClass.priority())
            .thenComparingLong(j -> j.createdAt)
            .thenComparing(j -> j.name);

    private final Load load;
    private final JobWriter writer;
    private final ExecutorService cycles = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "bench-reference-admitter");
        t.setDaemon(true);
        return t;
    });
    private final AtomicBoolean cycleAsked = new AtomicBoolean();
    private final AtomicLong refused = new AtomicLong();
    private final AtomicBoolean closed = new AtomicBoolean();

    // guarded by this
    private final Map<Object, PriorityQueue<JobRecord>> lanes = new LinkedHashMap<>();
    private final long[] leafUsed = new long[Load.LEAVES];
    private final long[] parentUsed = new long[Load.PARENTS];
    private long rootUsed;
    private final Set<JobRecord> charged = new HashSet<>();

    private final boolean blocking;

    /** @param blocking the blocking mode (one lane per leaf), else passing (one lane per leaf and job class) */
    ReferenceAdmitter(Load load, JobWriter writer, boolean blocking) {
        this.load = load;
        this.writer = writer;
        this.blocking = blocking;
    }

    private PriorityQueue<JobRecord> lane(JobRecord job) {
        Object key = blocking ? job.leaf : List.of(job.leaf, job.jobClass.name());
        return lanes.computeIfAbsent(key, k -> new PriorityQueue<>(ORDER));
    }

    @Override
    public void queued(JobRecord job) {
        synchronized (this) {
            lane(job).add(job);
        }
        askCycle();
    }

    @Override
    public void finished(JobRecord job) {
        synchronized (this) {
            uncharge(job);
        }
        askCycle();
    }

    private void askCycle() {
        if (cycleAsked.compareAndSet(false, true)) {
            cycles.execute(this::cycle);
        }
    }

    private void cycle() {
        cycleAsked.set(false);
        if (closed.get()) {
            return;
        }
        synchronized (this) {
            // the lanes' heads in a heap, so one decision costs O(log lanes), not a scan of every lane: with the
            // large load's 3,000 lanes a scan per decision made the reference, not the server, set the pace (and
            // held this lock, which the harness's watch needs, for seconds); a closed lane is not put back
            PriorityQueue<PriorityQueue<JobRecord>> heads = new PriorityQueue<>(
                    Math.max(1, lanes.size()), (a, b) -> ORDER.compare(a.peek(), b.peek()));
            for (PriorityQueue<JobRecord> lane : lanes.values()) {
                if (!lane.isEmpty()) {
                    heads.add(lane);
                }
            }
            while (!heads.isEmpty()) {
                PriorityQueue<JobRecord> lane = heads.poll();
                JobRecord best = lane.peek();
                if (fits(best)) {
                    lane.poll();
                    charge(best);
                    admit(best);
                    if (!lane.isEmpty()) {
                        heads.add(lane);
                    }
                }
            }
        }
    }

    private void admit(JobRecord job) {
        writer.unsuspend(job.namespace, job.name).whenComplete((response, error) -> {
            if (closed.get()) {
                // the run is over: under a write budget an answer can still be held when the job is seen finished
                // (the server applies a write on arrival), and comes back as an error when the client closes
                return;
            }
            if (error != null || !response.isSuccessful()) {
                refused.incrementAndGet();
                synchronized (this) {
                    uncharge(job);
                    lane(job).add(job);
                }
                askCycle();
            }
        });
    }

    private boolean fits(JobRecord job) {
        long cpu = job.jobClass.cpuMillis();
        return leafUsed[job.leaf] + cpu <= load.limits.leafMaxMillis()
                && parentUsed[job.parent()] + cpu <= load.limits.parentMaxMillis()
                && rootUsed + cpu <= load.limits.rootMaxMillis();
    }

    private void charge(JobRecord job) {
        long cpu = job.jobClass.cpuMillis();
        charged.add(job);
        leafUsed[job.leaf] += cpu;
        parentUsed[job.parent()] += cpu;
        rootUsed += cpu;
    }

    private void uncharge(JobRecord job) {
        if (!charged.remove(job)) {
            return;
        }
        long cpu = job.jobClass.cpuMillis();
        leafUsed[job.leaf] -= cpu;
        parentUsed[job.parent()] -= cpu;
        rootUsed -= cpu;
    }

    /** Admission patches refused or lost (each job was queued again). */
    long refused() {
        return refused.get();
    }

    @Override
    public void close() {
        closed.set(true);
        cycles.shutdownNow();
    }
}
