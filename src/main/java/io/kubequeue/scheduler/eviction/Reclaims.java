package io.kubequeue.scheduler.eviction;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiFunction;

import io.kubequeue.scheduler.ledger.QuotaLedger;
import io.kubequeue.scheduler.model.Admission;
import io.kubequeue.scheduler.model.CycleResult;
import io.kubequeue.scheduler.model.Eviction;
import io.kubequeue.scheduler.model.EvictionMarks;
import io.kubequeue.scheduler.model.Explanation;
import io.kubequeue.scheduler.model.Hold;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.scheduler.model.SchedulerSettings;
import io.kubequeue.scheduler.queue.JobEntry;
import io.kubequeue.scheduler.queue.QueueManager;

/**
 * Reclaims in progress (docs/policies.md, "Reclaim"): for each preemptor, its victims, and its room reserved in the
 * ledger so that nobody else, victims included, takes the room they free. The preemptor is held
 * ({@link Hold.Reason#RECLAIMING}) until every victim is seen suspended (released through an observation, never
 * assumed from the write's answer) and its pods are gone ({@link Evictions#keepsRoom}: a victim stays charged while
 * they terminate); the next cycle then admits it, before any other job. If its plan also counted on room that other
 * reclaims' victims are freeing ({@link ReclaimPlanner}: room on its way out), it waits for those victims too, its
 * room still reserved. A victim, once suspended,
 * yields to its preemptor ({@link JobEntry#yieldsTo}): it is not admitted while that reclaim goes on.
 *
 * <p>A reclaim is given up, its reservation returned and its victims free to go, when a victim's eviction is refused
 * (it runs on), when the preemptor is gone, admitted or changed, or when the quota groups change. After a restart,
 * victims found suspended for a preemptor still pending ({@link EvictionMarks#preemptor()}) make the first cycle admit
 * that preemptor first if it fits: the reclaim is finished; otherwise it is given up.
 *
 * <p>Only {@code Scheduler} calls it, under its lock.
 */
public final class Reclaims {

    /** One reclaim: the preemptor, its group, its reserved room and its victims. */
    private record InProgress(JobEntry preemptor, String group, Resources reserved, List<JobEntry> victims) {
    }

    private final QueueManager queues;
    private final QuotaLedger ledger;
    private final Evictions evictions;
    private final ReclaimPlanner planner;
    private final boolean enabled;
    private final Map<JobKey, InProgress> byPreemptor = new LinkedHashMap<>();
    /** Pending victims that yield to a preemptor, by preemptor. */
    private final Map<JobKey, List<JobEntry>> yielding = new HashMap<>();

    public Reclaims(QueueManager queues, QuotaLedger ledger, Evictions evictions, SchedulerSettings.Reclaim settings) {
        this.queues = queues;
        this.ledger = ledger;
        this.evictions = evictions;
        this.planner = new ReclaimPlanner(queues, ledger, settings.maxPerHour());
        this.enabled = settings.enabled();
    }

    /**
     * Takes on {@code original}'s reclaims in progress and who yields to whom, for the copies {@code entries} maps its
     * jobs to (for {@code Scheduler.copy}); the room they reserve is the ledger's, copied with it.
     */
    public void copyFrom(Reclaims original, Map<JobEntry, JobEntry> entries) {
        original.byPreemptor.forEach((key, r) -> byPreemptor.put(key, new InProgress(entries.get(r.preemptor()),
                r.group(), r.reserved(), copies(r.victims(), entries))));
        original.yielding.forEach((key, victims) -> yielding.put(key, new ArrayList<>(copies(victims, entries))));
        entries.forEach((from, to) -> to.yieldsTo(from.yieldsTo()));
    }

    public boolean enabled() {
        return enabled;
    }

    /** This cycle's victim candidates, read from every job once. */
    public ReclaimPlanner.Pool pool(Instant now) {
        return planner.pool(now);
    }

    /** Whether this pending job is a victim that waits for its preemptor's reclaim to end. */
    public boolean yields(JobEntry entry) {
        return entry.yieldsTo() != null && byPreemptor.containsKey(entry.yieldsTo());
    }

    /** A pending job now yields to {@code preemptor} (it was suspended for it). */
    public void yieldTo(JobEntry entry, JobKey preemptor) {
        queues.waitAlone(entry); // a victim is decided alone, never with a wave
        entry.yieldsTo(preemptor);
        if (preemptor != null) {
            yielding.computeIfAbsent(preemptor, k -> new ArrayList<>()).add(entry);
        }
    }

    /**
     * Tries to start a reclaim for a pending job that does not fit (already out of its queue's active set, or
     * polled from backoff): if victims exist, the job is held with its room reserved, and their evictions are
     * returned; else null, and the job is left as it was.
     */
    public List<Eviction> tryStart(String group, JobEntry job, Instant now, ReclaimPlanner.Pool pool,
                            List<CycleResult.Reclaim> started) {
        if (!enabled || job.refused() || yields(job)) {
            return null;
        }
        ReclaimPlanner.Plan plan = planner.plan(group, job, pool);
        if (plan == null) {
            return null;
        }
        List<JobEntry> victims = plan.victims();
        List<Eviction> out = new ArrayList<>(victims.size());
        List<JobKey> keys = new ArrayList<>(victims.size());
        List<String> victimGroups = new ArrayList<>(victims.size());
        for (JobEntry victim : victims) {
            out.add(evictions.evict(victim, Eviction.Reason.RECLAIM, job.job().key(), group, now));
            pool.leaves(victim);
            keys.add(victim.job().key());
            victimGroups.add(victim.chargedGroup());
        }
        Resources reserved = job.effectiveRequest();
        ledger.reserve(group, reserved);
        queues.holdForReclaim(job, Explanation.of("reclaims the min of quota group " + group + ": waits until "
                + victims.size() + (victims.size() == 1 ? " job" : " jobs") + " of borrowing groups (")
                .then(Explanation.jobs(keys, victimGroups))
                .then(") are seen suspended and their pods gone, then is admitted first"));
        byPreemptor.put(job.job().key(), new InProgress(job, group, reserved, victims));
        started.add(new CycleResult.Reclaim(job.job().key(), group, keys, victimGroups, plan.resources()));
        return out;
    }

    /**
     * At the start of a cycle: admits each preemptor whose victims are all seen suspended (or gone) and that fits,
     * through {@code admit}, and gives up the reclaims that cannot end so. Victims of preemptors no reclaim is known
     * for (after a restart) have their preemptor admitted first too, if it is pending and fits.
     *
     * @param admit charges the job to the group and returns its admission
     */
    public void settle(List<Admission> admissions, BiFunction<String, JobEntry, Admission> admit) {
        // first the reclaims that cannot end: their reservations must not keep room from a preemptor whose victims
        // are gone (found by ReclaimPropertiesTest: one preemptor's refused eviction left it in backoff)
        for (InProgress r : List.copyOf(byPreemptor.values())) {
            if (current(r) && stillRunning(r)
                    && r.victims.stream().anyMatch(v -> v.state() == JobState.ADMITTED && v.evicting() == null)) {
                end(r, true); // an eviction was refused: that victim runs on, the room will not come
            }
        }
        for (InProgress r : List.copyOf(byPreemptor.values())) {
            JobEntry p = r.preemptor;
            boolean current = current(r);
            if (current && stillRunning(r)) {
                continue;
            }
            if (current) {
                Map<String, Resources> leaving = leavingForOthers();
                if (!ledger.fitsBeside(r.group(), p, r.reserved, leaving)
                        && ledger.fitsOnceGone(r.group(), p, r.reserved, leaving)) {
                    // its own victims are gone, but its plan also counted on room other reclaims' victims, still
                    // charged, are freeing: it waits for that room, its own still reserved, rather than give its
                    // reclaim up while its victims take theirs back (ReclaimPropertiesTest, seed -8839912939055926842)
                    continue;
                }
            }
            ledger.unreserve(r.group(), r.reserved);
            byPreemptor.remove(p.job().key());
            if (current && ledger.fitsBeside(r.group(), p, leavingForOthers())) {
                queues.dequeue(p);
                admissions.add(admit.apply(r.group(), p));
            } else if (current) {
                queues.activate(p); // something else took the room (or the groups changed): it queues again
            }
            freeYielders(p.job().key());
        }
        finishOrphans(admissions, admit);
    }

    /**
     * Per node, what the victims of the reclaims still in progress free once they are seen suspended: the room their
     * reservations wait for. A plan counts that room as on its way out ({@link ReclaimPlanner}), so the preemptor
     * whose own victims are gone first must not wait for the others' too.
     */
    private Map<String, Resources> leavingForOthers() {
        Map<String, Resources> leaving = new HashMap<>();
        for (InProgress other : byPreemptor.values()) {
            for (JobEntry v : other.victims) {
                if (v.state() == JobState.ADMITTED && v.evicting() != null && v.chargedGroup() != null) {
                    ReclaimPlanner.addAlongPath(leaving, ledger.tree(), v);
                }
            }
        }
        return leaving;
    }

    /**
     * The copies of a reclaim's jobs. A victim that ended while its reclaim goes on is no job of the core any more and
     * has no copy: it is left out, as it counts for nothing here either (it is no longer admitted, and a yielder is
     * freed only if it is still the core's entry).
     */
    private static List<JobEntry> copies(List<JobEntry> jobs, Map<JobEntry, JobEntry> entries) {
        return jobs.stream().map(entries::get).filter(Objects::nonNull).toList();
    }

    /** Whether the reclaim's preemptor is still the job held for it. */
    private boolean current(InProgress r) {
        JobEntry p = r.preemptor;
        return queues.get(p.job().key()) == p && p.state() == JobState.HELD
                && p.hold() != null && p.hold().kind() == Hold.Reason.RECLAIMING;
    }

    /** Whether some victim of the reclaim is still charged. */
    private static boolean stillRunning(InProgress r) {
        for (JobEntry v : r.victims) {
            if (v.state() == JobState.ADMITTED) {
                return true;
            }
        }
        return false;
    }

    /** Victims whose preemptor has no reclaim here (found after a restart): it goes first if pending and fitting. */
    private void finishOrphans(List<Admission> admissions, BiFunction<String, JobEntry, Admission> admit) {
        for (JobKey preemptorKey : List.copyOf(yielding.keySet())) {
            if (byPreemptor.containsKey(preemptorKey)) {
                continue;
            }
            JobEntry p = queues.get(preemptorKey);
            if (p != null && (p.state() == JobState.ACTIVE || p.state() == JobState.BACKOFF) && !p.refused()
                    && p.group() != null && ledger.fits(p.group(), p)) {
                String group = p.group();
                queues.dequeue(p);
                admissions.add(admit.apply(group, p));
            }
            freeYielders(preemptorKey);
        }
    }

    /** Gives a reclaim up: its room is returned, its preemptor queues again, its victims go. */
    private void end(InProgress r, boolean requeuePreemptor) {
        byPreemptor.remove(r.preemptor.job().key());
        ledger.unreserve(r.group(), r.reserved);
        if (requeuePreemptor) {
            queues.dequeue(r.preemptor);
            queues.activate(r.preemptor);
        }
        freeYielders(r.preemptor.job().key());
    }

    /** The victims that yielded to this preemptor may be admitted again: those backing off are tried at once. */
    private void freeYielders(JobKey preemptor) {
        List<JobEntry> victims = yielding.remove(preemptor);
        if (victims == null) {
            return;
        }
        for (JobEntry v : victims) {
            if (queues.get(v.job().key()) != v || !preemptor.equals(v.yieldsTo())) {
                continue; // forgotten, or admitted and evicted again since
            }
            v.yieldsTo(null);
            if (v.state() == JobState.BACKOFF) {
                queues.endBackoff(v, true);
            }
        }
    }

    /**
     * The quota groups changed: every pending job is queued anew, so every reclaim is given up (its reservation went
     * with the old groups) and its victims are free to go.
     */
    public void abandonAll() {
        byPreemptor.clear();
        for (JobKey preemptor : List.copyOf(yielding.keySet())) {
            freeYielders(preemptor);
        }
    }

    /** How many reclaims are in progress. */
    int inProgress() {
        return byPreemptor.size();
    }
}
