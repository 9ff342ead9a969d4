package io.kubequeue.scheduler.queue;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.AbstractCollection;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import com.carrotsearch.hppc.ObjectObjectHashMap;
import com.carrotsearch.hppc.cursors.ObjectCursor;

import io.kubequeue.scheduler.ledger.QuotaLedger;
import io.kubequeue.scheduler.model.AdmissionRecord;
import io.kubequeue.scheduler.model.Explanation;
import io.kubequeue.scheduler.model.Hold;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.scheduler.model.PriorityClasses;
import io.kubequeue.scheduler.model.QuotaNode;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.scheduler.model.SchedulerSettings;

/**
 * The queue side of the core: every job the core holds, one {@link GroupQueue} per quota group, the global backoff
 * set sorted by retry time, the held jobs, and the moves between them (activate, back off, hold, dequeue,
 * re-prioritise). Queue order is {@link QueueOrder}; backoff doubles from {@code initialBackoff} to
 * {@code maxBackoff} (kube-scheduler's unschedulable backoff: 1 s to 20 s by default).
 *
 * <p>Only {@code Scheduler} calls it, under its lock. It reads the quota groups in force from the
 * {@link QuotaLedger}, to know which group a job queues in, and hands admitted jobs' charges back to it on
 * {@link #forget}.
 */
public final class QueueManager {

    private final SchedulerSettings settings;
    private final Clock clock;
    private final QuotaLedger ledger;
    /** Told of each admission and release, in this order (see {@link #reportAdmissionsTo}). */
    private List<AdmissionListener> admissionListeners = List.of();
    private PriorityClasses priorityClasses = PriorityClasses.NONE;
    /**
     * Every job the core holds, by key: HPPC's open-addressing map (two arrays, no node per job) where a HashMap
     * costs a 32-byte node per pending job (issue 27). Read through {@link #get} and {@link #all}.
     */
    private final ObjectObjectHashMap<JobKey, JobEntry> jobs = new ObjectObjectHashMap<>() {
        /**
         * One iteration order, as a HashMap has: HPPC starts each iteration at a new pseudo-random slot, and the walks
         * over every job (re-queueing after a tree change, say) would then differ from run to run.
         */
        @Override
        protected int nextIterationSeed() {
            return 0;
        }
    };
    /** {@link #jobs}' entries as a collection, for the for-each loops that walk every job. */
    private final Collection<JobEntry> allJobs = new AbstractCollection<>() {
        @Override
        public Iterator<JobEntry> iterator() {
            Iterator<ObjectCursor<JobEntry>> cursors = jobs.values().iterator();
            return new Iterator<>() {
                @Override
                public boolean hasNext() {
                    return cursors.hasNext();
                }

                @Override
                public JobEntry next() {
                    return cursors.next().value;
                }
            };
        }

        @Override
        public int size() {
            return jobs.size();
        }
    };
    private final Map<String, GroupQueue> queues = new HashMap<>();
    /**
     * Every backed-off job, earliest retry first: each job that waits alone, and each {@link BackoffWave} by its
     * first member. A heap, 40 bytes per job less than a sorted set (issue 27).
     */
    private final EntryHeap backoff = new EntryHeap(QueueOrder.RETRY, EntryHeap.Slot.RETRY);
    /** The waves registered, by what their jobs share; a wave being decided by a cycle is out of it. */
    private final Map<BackoffWave.Key, BackoffWave> waves = new HashMap<>();
    /**
     * The backed-off jobs that may wait in a wave but wait alone, no other job waiting alike: a wave is made only
     * when a second one comes (a wave of one costs ~220 bytes, see {@link LoneWaiters}).
     */
    private final LoneWaiters lone = new LoneWaiters();
    /**
     * Whether backed-off jobs that wait alike wait as one wave. Off, every job waits alone, as before issue 27: the
     * reference the property tests compare decisions with ({@code BackoffWavesPropertiesTest}).
     */
    private boolean wavesOn = true;
    private final Map<JobKey, JobEntry> held = new LinkedHashMap<>();
    /** Per group, the queue times of its held jobs that count as its pending ones (not those of no group). */
    private final Map<String, QueuedSince> heldSince = new HashMap<>();
    /** Per group, how many of {@link #held} count as its pending ones. */
    private final Map<String, Integer> heldCount = new HashMap<>();
    private final List<Hold> newHolds = new ArrayList<>();

    public QueueManager(SchedulerSettings settings, Clock clock, QuotaLedger ledger) {
        this.settings = settings;
        this.clock = clock;
        this.ledger = ledger;
    }

    /**
     * Admits a job in the core: it leaves the pending states (no hold, no retry time), the ledger charges it
     * ({@link QuotaLedger#charge}), and then the parts that keep state per admission are told, to start it over (the
     * admission's answer, the timeout watch: {@link #reportAdmissionsTo}).
     *
     * @param floor millicores, bytes and counts the charge is never below; null: none
     */
    public void admit(JobEntry entry, AdmissionRecord record, boolean unknown, Resources floor) {
        entry.state = JobState.ADMITTED;
        entry.hold(null);
        entry.setRetryAt(null);
        ledger.charge(entry, record, unknown, floor);
        for (AdmissionListener listener : admissionListeners) {
            listener.admitted(entry);
        }
    }

    /** As {@link #admit(JobEntry, AdmissionRecord, boolean, Resources)} with no floor. */
    public void admit(JobEntry entry, AdmissionRecord record, boolean unknown) {
        admit(entry, record, unknown, null);
    }

    /**
     * Takes an admitted job's charge off ({@link QuotaLedger#uncharge}); it is left in no state: the caller queues
     * it, holds it, or forgets it.
     *
     * @param ran whether the job may have run (its pods may still be counted outside kube-queue)
     */
    public void release(JobEntry entry, boolean ran) {
        ledger.uncharge(entry, ran);
        for (AdmissionListener listener : admissionListeners) {
            listener.released(entry);
        }
        entry.state = null;
    }

    /** One more failed try for every member of a wave taken out by a cycle (see {@link #takeWave}). */
    public void countTry(BackoffWave wave) {
        wave.attempts++;
    }

    /** Who is told of each admission and release, in this order; set once, at construction of the core. */
    public void reportAdmissionsTo(AdmissionListener... listeners) {
        this.admissionListeners = List.of(listeners);
    }

    /** One more failed try (it did not fit, its admission was refused, it timed out). */
    public void countTry(JobEntry entry) {
        entry.attempts++;
    }

    /** Takes a newer copy of the job (its priority resolved again); only while it is in no sorted set. */
    public void replaceCopy(JobEntry entry, JobObservation copy) {
        entry.setJob(copy, priorityClasses);
    }

    /**
     * A job suspended again after it ran queues anew from {@code copy}: its tries start over and its wait starts
     * {@code at} (metrics, events). The caller has released its charge.
     */
    public void queueAgain(JobEntry entry, JobObservation copy, Instant at) {
        entry.setJob(keepCreation(copy, entry.job), priorityClasses);
        entry.attempts = 0;
        entry.queuedAt(at);
        activate(entry);
    }

    /**
     * A job a cycle found short: backing off from now, though it joins its group's backed-off set only after the
     * cycle ({@link #backOff}), so no cursor of the cycle meets it.
     */
    public void backingOff(JobEntry entry) {
        entry.state = JobState.BACKOFF;
    }

    /**
     * Its admission was refused because the job changed after {@code version}, no newer copy seen yet: the first copy
     * newer than it ends its backoff ({@link #update}); null: no such refusal.
     */
    public void outdatedAt(JobEntry entry, String version) {
        entry.outdatedAt(version);
    }

    /**
     * Makes a copy of each of {@code original}'s jobs, in its order, with what identifies it and its placement's
     * values (state, group, tries, refusal, last hold), into no set yet ({@link #placeCopies} places them once every
     * part has copied its own fields); the priority classes and the waves switch too (for {@code Scheduler.copy}).
     *
     * @return original entry to its copy
     */
    public Map<JobEntry, JobEntry> copyEntriesFrom(QueueManager original) {
        priorityClasses = original.priorityClasses;
        wavesOn = original.wavesOn;
        Map<JobEntry, JobEntry> entries = new IdentityHashMap<>();
        for (JobEntry from : original.allJobs) {
            JobEntry to = new JobEntry(from.job, from.queuedAt(), from.priority);
            to.state = from.state;
            to.group = from.group;
            to.attempts = from.attempts();
            to.refused = from.refused;
            to.outdatedAt(from.outdatedAt());
            to.lastHold(from.lastHold());
            jobs.put(from.job.key(), to);
            entries.put(from, to);
        }
        newHolds.addAll(original.newHolds);
        return entries;
    }

    /**
     * Puts each copy where its original waits: held jobs in the original's order of holding, active ones in their
     * group's queue, backed-off ones back off until the same time (each alone first; the waves form again as they
     * do, which decides nothing differently: {@code BackoffWavesPropertiesTest}).
     */
    public void placeCopies(QueueManager original, Map<JobEntry, JobEntry> entries) {
        for (JobEntry from : original.held.values()) {
            JobEntry to = entries.get(from);
            to.hold(from.hold());
            putHeld(to);
        }
        for (JobEntry from : original.allJobs) {
            JobEntry to = entries.get(from);
            if (from.state == JobState.ACTIVE) {
                queues.computeIfAbsent(to.group, GroupQueue::new).active.add(to);
            } else if (from.state == JobState.BACKOFF) {
                backOff(to, from.retryAt());
            }
        }
    }

    public JobEntry get(JobKey key) {
        return jobs.get(key);
    }

    public Collection<JobEntry> all() {
        return allJobs;
    }

    /** The job, if it is admitted under that very record (an answer about another admission finds none). */
    public JobEntry admittedAs(JobKey key, AdmissionRecord record) {
        JobEntry entry = jobs.get(key);
        return entry != null && entry.state == JobState.ADMITTED && record.equals(entry.record()) ? entry : null;
    }

    /** A new entry for a job first seen now, in no queue yet. */
    public JobEntry newEntry(JobObservation observation) {
        JobEntry entry = new JobEntry(observation, clock.instant(), priorityClasses.resolve(observation.priority()));
        jobs.put(observation.key(), entry);
        return entry;
    }

    /** A job's entry as if it were queued now, held nowhere (for a dry run). */
    public JobEntry detachedEntry(JobObservation observation, String group) {
        JobEntry entry = new JobEntry(observation, clock.instant(), priorityClasses.resolve(observation.priority()));
        entry.group = group;
        return entry;
    }

    public PriorityClasses priorityClasses() {
        return priorityClasses;
    }

    public GroupQueue queue(String group) {
        return queues.get(group);
    }

    public Collection<GroupQueue> queues() {
        return queues.values();
    }

    public Collection<JobEntry> held() {
        return held.values();
    }

    /** How many held jobs count as the group's pending ones (a hold for want of a group counts nowhere). */
    public int heldIn(String group) {
        return heldCount.getOrDefault(group, 0);
    }

    /** The oldest queue time among those held jobs, or null. */
    public Instant oldestHeldIn(String group) {
        QueuedSince since = heldSince.get(group);
        return since == null ? null : since.oldest();
    }

    /** The groups with held jobs that count as their pending ones. */
    public java.util.Set<String> groupsWithHeld() {
        return heldCount.keySet();
    }

    /** Holds a job in {@link #held}, counted in its group unless it is held for want of one. */
    private void putHeld(JobEntry entry) {
        JobEntry previous = held.put(entry.job.key(), entry);
        if (previous != null) {
            forgetHeld(previous);
        }
        forgetHeld(entry);
        if (entry.group != null && entry.hold().kind() != Hold.Reason.NO_QUOTA_GROUP) {
            heldSince.computeIfAbsent(entry.group, g -> new QueuedSince()).add(entry);
            heldCount.merge(entry.group, 1, Integer::sum);
            entry.heldCountedIn(entry.group);
        }
    }

    private void removeHeld(JobEntry entry) {
        JobEntry removed = held.remove(entry.job.key());
        if (removed != null) {
            forgetHeld(removed);
        }
    }

    private void forgetHeld(JobEntry entry) {
        String group = entry.heldCountedIn();
        if (group != null) {
            entry.heldCountedIn(null);
            heldSince.get(group).remove(entry);
            if (heldCount.merge(group, -1, Integer::sum) == 0) {
                heldCount.remove(group);
                heldSince.remove(group);
            }
        }
    }

    /** See {@link #wavesOn}; for tests, before any job is queued. */
    public void waitInWaves(boolean on) {
        this.wavesOn = on;
    }

    /**
     * For tests: what breaks the rules of waves and lone waiters, or null. Every wave in the map has two members or
     * more, its first in the global set; every job alone in the global set is a lone waiter if it may wait in a wave
     * (and only then), hashed on its fields as they are now.
     */
    public String wavesBroken() {
        for (Map.Entry<BackoffWave.Key, BackoffWave> e : waves.entrySet()) {
            BackoffWave wave = e.getValue();
            if (wave.size() < 2 || wave.taken || !wave.key().equals(e.getKey())) {
                return "wave " + e.getKey() + " of " + wave.size() + (wave.taken ? ", taken" : "");
            }
            for (JobEntry member : wave.members) {
                if (member.wave != wave || lone.contains(member)) {
                    return "member " + member.job.key() + " of wave " + e.getKey();
                }
            }
            if (!backoff.contains(wave.members.first())) {
                return "wave " + e.getKey() + " has no place in the global set";
            }
        }
        int[] alone = {0};
        for (JobEntry entry : backoff) {
            if (entry.wave == null) {
                boolean may = wavesOn && !entry.refused && entry.yieldsTo() == null && entry.group != null
                        && entry.hasOwnRetryAt();
                if (may != lone.contains(entry)) {
                    return "job " + entry.job.key() + (may ? " may wait in a wave, and is no lone waiter"
                            : " is a lone waiter, and may not wait in a wave");
                }
                alone[0] += may ? 1 : 0;
            }
        }
        if (alone[0] != lone.size()) {
            return lone.size() + " lone waiters, " + alone[0] + " of them in the global set";
        }
        return null;
    }

    /** How many waves wait (for tests: lone jobs make none). */
    public int waveCount() {
        return waves.size();
    }

    public boolean anyBackedOff() {
        return !backoff.isEmpty();
    }

    /** When the next backoff expires, if any job backs off. */
    public Optional<Instant> nextRetry() {
        return backoff.isEmpty() ? Optional.empty() : Optional.of(backoff.first().retryAt());
    }

    /**
     * The backed-off job whose backoff expired first by {@code now}, taken out of the global set; else null. A job
     * in a wave stands for the wave: the cycle decides the whole wave ({@link #takeWave}, {@link #endBackoff(
     * BackoffWave)}) or this job alone ({@link #leaveWave}).
     */
    public JobEntry pollExpired(Instant now) {
        if (backoff.isEmpty() || backoff.first().retryAtNanos() > Times.nanos(now)) {
            return null;
        }
        JobEntry first = backoff.pollFirst();
        if (first.wave == null) {
            lone.remove(first); // decided alone: none may join it before it waits again
        }
        return first;
    }

    /** A job taken by {@link #pollExpired} that waits again in place, in its group's backed-off set. */
    public void waitAgain(JobEntry entry, Instant retryAt) {
        entry.setRetryAt(retryAt);
        addTimer(entry);
    }

    /**
     * Puts a backed-off job into the global set: into the wave of the jobs that wait alike, if it may wait in one
     * (not a refused admission, which only its own expiry retries; not a reclaim's victim), else alone.
     */
    private void addTimer(JobEntry entry) {
        if (!wavesOn || entry.refused || entry.yieldsTo() != null || entry.group == null || !entry.hasOwnRetryAt()) {
            backoff.add(entry);
            return;
        }
        BackoffWave.Key key = new BackoffWave.Key(QuotaLedger.FitShape.of(entry.group, entry), entry.ownRetryAt(),
                entry.attempts);
        BackoffWave wave = waves.get(key);
        if (wave == null) {
            JobEntry alike = lone.take(entry.group, entry.effectiveRequest(), entry.job.preemptible(), entry.ownRetryAt(),
                    entry.attempts);
            if (alike == null) {
                lone.add(entry); // waits alone until another job waits alike
                backoff.add(entry);
                return;
            }
            wave = new BackoffWave(key); // its values are the lone job's own: its place in the global set holds
            waves.put(key, wave);
            wave.members.add(alike);
            alike.wave = wave;
        }
        JobEntry first = wave.members.isEmpty() ? null : wave.members.first();
        wave.members.add(entry);
        entry.wave = wave;
        if (first == null) {
            backoff.add(entry);
        } else if (wave.members.first() == entry) {
            backoff.remove(first); // the wave's place in the global set is its first member's
            backoff.add(entry);
        }
    }

    /**
     * Takes a backed-off job out of the global set, out of its wave if it is in one (its tries and retry time then
     * become its own; the rest of the wave keeps its place).
     */
    private void removeTimer(JobEntry entry) {
        BackoffWave wave = entry.wave;
        if (wave == null) {
            backoff.remove(entry);
            lone.remove(entry);
            return;
        }
        boolean first = wave.members.first() == entry;
        if (first) {
            backoff.remove(entry); // a no-op if a cycle polled it
        }
        wave.members.remove(entry);
        entry.wave = null;
        entry.attempts = wave.attempts;
        entry.setRetryAt(wave.retryAt);
        if (wave.members.isEmpty()) {
            waves.remove(wave.key(), wave);
        } else if (first && !wave.taken) {
            backoff.add(wave.members.first());
        }
        if (!wave.taken && wave.members.size() == 1) {
            dissolve(wave);
        }
    }

    /**
     * A waiting wave left with one member ends: that job waits alone, in the same place of the global set (the same
     * retry time), its tries and retry time its own, until another job waits alike.
     */
    private void dissolve(BackoffWave wave) {
        waves.remove(wave.key(), wave);
        JobEntry last = wave.members.first();
        wave.members.clear();
        last.wave = null;
        last.attempts = wave.attempts;
        last.setRetryAt(wave.retryAt);
        lone.add(last);
    }

    /**
     * A wave's first member, taken by {@link #pollExpired}, is decided alone: it leaves the wave, whose next member
     * takes its place in the global set (still due in this cycle, so tried in the order it would be alone).
     */
    public void leaveWave(JobEntry entry) {
        if (entry.wave != null) {
            removeTimer(entry);
        }
    }

    /** A job waiting in a wave stops waiting alike with it (it now yields to a reclaim): it waits alone. */
    public void waitAlone(JobEntry entry) {
        if (entry.wave != null) {
            removeTimer(entry);
            backoff.add(entry);
        } else {
            lone.remove(entry); // none may join it now
        }
    }

    /**
     * A due wave, its first member taken by {@link #pollExpired}, whose jobs all fail their try in place: out of the
     * map while the cycle has their try counted ({@link #countTry(BackoffWave)});
     * {@link #waitAgain(BackoffWave, Instant)} puts it back.
     */
    public void takeWave(BackoffWave wave) {
        waves.remove(wave.key(), wave);
        wave.taken = true;
    }

    /**
     * A wave taken by {@link #takeWave} waits again until {@code retryAt}: back in the global set, merged with the
     * wave already waiting alike, if there is one (the smaller moves into the larger).
     */
    public void waitAgain(BackoffWave wave, Instant retryAt) {
        wave.taken = false;
        if (wave.members.isEmpty()) {
            return;
        }
        wave.retryAt = retryAt;
        if (wave.members.size() == 1) {
            // a wave of one waits as a lone job (it may join one waiting alike)
            JobEntry only = wave.members.first();
            wave.members.clear();
            only.wave = null;
            only.attempts = wave.attempts;
            only.setRetryAt(retryAt);
            addTimer(only);
            return;
        }
        BackoffWave.Key key = wave.key();
        BackoffWave same = waves.get(key);
        if (same == null) {
            JobEntry alike = lone.take(wave.shape.group(), wave.shape.request(), wave.shape.preemptible(), retryAt,
                    wave.attempts);
            if (alike != null) {
                backoff.remove(alike); // it joins: the wave's place is its first member's
                alike.wave = wave;
                wave.members.add(alike);
            }
            waves.put(key, wave);
            backoff.add(wave.members.first());
            return;
        }
        BackoffWave into = same.size() >= wave.size() ? same : wave;
        BackoffWave from = into == same ? wave : same;
        backoff.remove(same.members.first()); // the waiting one's place; the taken one has none
        List<JobEntry> moving = from.members.toList();
        from.members.clear(); // first: a member keeps one slot, for the wave it is in
        for (JobEntry member : moving) {
            member.wave = into;
            into.members.add(member);
        }
        waves.put(key, into);
        backoff.add(into.members.first());
    }

    /**
     * A due wave, its first member taken by {@link #pollExpired}, whose jobs may fit: every one goes back to its
     * group's active set, as each would alone.
     */
    public void endBackoff(BackoffWave wave) {
        waves.remove(wave.key(), wave);
        GroupQueue queue = queues.get(wave.shape.group());
        List<JobEntry> members = wave.members.toList();
        wave.members.clear();
        for (JobEntry member : members) {
            member.wave = null;
            member.attempts = wave.attempts;
            member.setRetryAt(null);
            member.state = JobState.ACTIVE;
            queue.backedOff.remove(member);
            queue.active.add(member);
        }
    }

    /** A backed-off job tried in place that still does not fit: one more try, its retry time kept. */
    public void failedInPlace(JobEntry entry) {
        removeTimer(entry);
        entry.attempts++;
        addTimer(entry);
    }

    /** Moves a backed-off job to its group's active set; {@code inGlobalSet}: not yet polled from the global set. */
    public void endBackoff(JobEntry entry, boolean inGlobalSet) {
        GroupQueue queue = queues.get(entry.group);
        queue.backedOff.remove(entry);
        if (inGlobalSet) {
            removeTimer(entry);
        }
        entry.setRetryAt(null);
        entry.state = JobState.ACTIVE;
        queue.active.add(entry);
    }

    /** A backed-off job a cycle takes out of its group's set through a cursor: out of the global set too. */
    public void leftBackoff(JobEntry entry) {
        removeTimer(entry);
        entry.setRetryAt(null);
    }

    /** The backoff after {@code attempts} failed tries: initial, doubled per try, capped at max. */
    public Duration backoffFor(int attempts) {
        Duration d = settings.initialBackoff();
        for (int i = 1; i < attempts && d.compareTo(settings.maxBackoff()) < 0; i++) {
            d = Times.doubled(d);
        }
        return d.compareTo(settings.maxBackoff()) > 0 ? settings.maxBackoff() : d;
    }

    /** Puts a pending job into its group's active queue, or holds it if it has no group. */
    public void activate(JobEntry entry) {
        if (entry.state == JobState.HELD) {
            removeHeld(entry); // a reclaiming preemptor queued again (Reclaims): it no longer waits among the held
        }
        QuotaTree tree = ledger.tree();
        Optional<QuotaNode> group = tree.groupFor(entry.job.key().namespace(), entry.job.quotaName());
        if (group.isEmpty()) {
            entry.group = null;
            hold(entry, Hold.Reason.NO_QUOTA_GROUP, noGroupReason(entry.job));
            return;
        }
        entry.group = group.get().name();
        entry.state = JobState.ACTIVE;
        entry.hold(null);
        entry.refused = false;
        queues.computeIfAbsent(entry.group, GroupQueue::new).active.add(entry);
    }

    /** Why a job has no quota group, in words a user can act on. */
    public String noGroupReason(JobObservation job) {
        return ledger.tree().nodes().isEmpty()
                ? "no quota groups are in force yet (quota objects unreadable, or no valid ElasticQuotaTree)"
                : job.quotaName() != null && !job.quotaName().isEmpty()
                ? java.util.Objects.requireNonNullElse(ledger.tree().labelRefusal(job.key().namespace(),
                        job.quotaName()), "quota group " + job.quotaName() + " is not in force")
                : "namespace " + job.key().namespace() + " belongs to no quota group";
    }

    /**
     * Backs off a job a cycle was deciding when it failed, wherever the cycle had taken it from (its active set, its
     * backed-off set, the global set): it is in each set once afterwards, as after {@link #backOff}.
     */
    public void backOffAfterFailure(JobEntry entry, Instant retryAt) {
        GroupQueue queue = queues.get(entry.group);
        if (queue != null) {
            queue.active.remove(entry);
            queue.backedOff.remove(entry);
        }
        if (entry.retryAt() != null) {
            removeTimer(entry); // sorted by retry time: only a job that has one can be in it
        }
        backOff(entry, retryAt);
    }

    /**
     * Backs off a job whose admission was refused, or that was evicted for its admission timeout: only the expiry of
     * this backoff retries it, not a release (retry on release, blocking queue), until {@link #endRefusal}.
     */
    public void backOffRefused(JobEntry entry, Instant retryAt) {
        entry.refused = true;
        backOff(entry, retryAt);
    }

    /** As {@link #backOffRefused(JobEntry, Instant)}, waiting in {@code group} (the one it was refused in). */
    public void backOffRefused(JobEntry entry, String group, Instant retryAt) {
        entry.group = group;
        backOffRefused(entry, retryAt);
    }

    /** A refused job's backoff expired and a cycle decides it now: from here on it is tried as any other job. */
    public void endRefusal(JobEntry entry) {
        entry.refused = false;
    }

    public void backOff(JobEntry entry, Instant retryAt) {
        entry.state = JobState.BACKOFF;
        entry.setRetryAt(retryAt);
        addTimer(entry);
        queues.computeIfAbsent(entry.group, GroupQueue::new).backedOff.add(entry);
    }

    /** Holds a pending job apart until the quota groups change; a hold whose reason is new is reported once. */
    public void hold(JobEntry entry, Hold.Reason kind, String reason) {
        Hold hold = new Hold(entry.job.key(), kind, reason);
        boolean changed = entry.lastHold() == null || !entry.lastHold().equals(hold);
        entry.state = JobState.HELD;
        entry.hold(hold);
        entry.lastHold(hold);
        putHeld(entry);
        if (changed) {
            newHolds.add(hold);
        }
    }

    /**
     * Takes a pending job out of its queue while it reclaims its group's min: held, not reported (the admission side
     * tells the user through the reclaim itself). Any change of the quota groups makes it active again.
     */
    public void holdForReclaim(JobEntry entry, Explanation reason) {
        dequeue(entry);
        entry.state = JobState.HELD;
        entry.setRetryAt(null);
        entry.hold(new Hold(entry.job.key(), Hold.Reason.RECLAIMING, reason));
        putHeld(entry);
    }

    /** The holds made since the last call, each reported once. */
    public List<Hold> takeNewHolds() {
        List<Hold> holds = List.copyOf(newHolds);
        newHolds.clear();
        return holds;
    }

    /** Takes a pending job out of wherever it waits. */
    public void dequeue(JobEntry entry) {
        if (entry.state == JobState.ACTIVE || entry.state == JobState.BACKOFF) {
            GroupQueue queue = queues.get(entry.group);
            if (entry.state == JobState.BACKOFF) {
                removeTimer(entry);
                entry.setRetryAt(null);
            }
            if (queue != null) {
                queue.active.remove(entry);
                queue.backedOff.remove(entry);
                dropIfEmpty(queue);
            }
        } else if (entry.state == JobState.HELD) {
            removeHeld(entry);
        }
    }

    void dropIfEmpty(GroupQueue queue) {
        if (queue.isEmpty()) {
            queues.remove(queue.group);
        }
    }

    public void dropEmptyQueues() {
        queues.values().removeIf(GroupQueue::isEmpty);
    }

    /** Forgets a job: an admitted one's charge is released, a pending one leaves its queue. */
    public void forget(JobEntry entry) {
        if (entry.state == JobState.ADMITTED) {
            release(entry, true);
        } else {
            dequeue(entry);
        }
        jobs.remove(entry.job.key());
    }

    /**
     * A pending job seen again: placed anew if what places it changed (priority, request, group label,
     * preemptibility); a backed-off job whose priority alone changed still does not fit, and keeps its backoff. A job
     * backed off because its admission found it changed ({@link JobEntry#outdatedAt}) is tried again at once on a
     * newer copy.
     */
    public void update(JobEntry entry, JobObservation observation) {
        JobObservation old = entry.job;
        if (entry.state == JobState.BACKOFF && entry.outdatedAt() != null
                && observation.newerThan(entry.outdatedAt())) {
            // its admission was refused because the job changed: this is the change, decided on at once
            entry.outdatedAt(null);
            dequeue(entry);
            entry.setJob(keepCreation(observation, old), priorityClasses);
            activate(entry);
            return;
        }
        boolean placementChanged = !old.priority().equals(observation.priority())
                || !old.request().equals(observation.request())
                || !Objects.equals(old.quotaName(), observation.quotaName())
                || old.preemptible() != observation.preemptible();
        if (!placementChanged) {
            entry.setJob(keepCreation(observation, old), priorityClasses);
            return;
        }
        JobState previous = entry.state;
        Instant retryAt = entry.retryAt();
        dequeue(entry);
        entry.setJob(keepCreation(observation, old), priorityClasses);
        if (previous == JobState.BACKOFF && old.request().equals(observation.request())
                && Objects.equals(old.quotaName(), observation.quotaName())
                && old.preemptible() == observation.preemptible()) {
            backOff(entry, retryAt); // only its priority changed: it still does not fit
        } else {
            activate(entry);
        }
    }

    /** An update never moves a job back in its queue: the first creation time seen is kept. */
    public static JobObservation keepCreation(JobObservation next, JobObservation old) {
        if (next.createdAt().equals(old.createdAt())) {
            return next;
        }
        return new JobObservation(next.key(), next.uid(), next.phase(), next.request(), next.priority(), old.createdAt(),
                next.quotaName(), next.preemptible(), next.record(), next.resourceVersion(), next.stoppable(),
                next.evictions(), next.pods(), next.admittedRequest(), next.runTime());
    }

    /** See {@code Scheduler.replacePriorityClasses}. */
    public void replacePriorityClasses(PriorityClasses classes) {
        this.priorityClasses = Objects.requireNonNull(classes, "classes");
        for (JobEntry entry : allJobs) {
            int resolved = classes.resolve(entry.job.priority());
            if (resolved != entry.priority) {
                reprioritise(entry, resolved);
            }
        }
    }

    private void reprioritise(JobEntry entry, int priority) {
        if (entry.state == JobState.ACTIVE || entry.state == JobState.BACKOFF) {
            JobState state = entry.state;
            Instant retryAt = entry.retryAt();
            dequeue(entry);
            entry.priority = priority;
            if (state == JobState.BACKOFF) {
                backOff(entry, retryAt);
            } else {
                entry.state = JobState.ACTIVE;
                queues.computeIfAbsent(entry.group, GroupQueue::new).active.add(entry);
            }
        } else {
            entry.priority = priority;
        }
    }

    /**
     * After the quota groups changed: every pending job is placed anew and made active, so held and backed-off
     * jobs get a fresh chance at once.
     */
    public void requeueAllPending() {
        List<JobEntry> pending = new ArrayList<>();
        for (JobEntry entry : allJobs) {
            if (entry.state != JobState.ADMITTED) {
                pending.add(entry);
            }
        }
        queues.clear();
        backoff.clear();
        waves.clear();
        lone.clear();
        held.clear();
        heldSince.clear();
        heldCount.clear();
        for (JobEntry entry : pending) {
            entry.wave = null;
            entry.heldCountedIn(null);
            entry.attempts = 0;
            entry.setRetryAt(null);
            activate(entry);
        }
    }

    /** The admitted jobs. */
    public List<JobEntry> admitted() {
        List<JobEntry> admitted = new ArrayList<>();
        for (JobEntry entry : allJobs) {
            if (entry.state == JobState.ADMITTED) {
                admitted.add(entry);
            }
        }
        return admitted;
    }
}
