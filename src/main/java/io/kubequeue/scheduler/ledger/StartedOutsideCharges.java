package io.kubequeue.scheduler.ledger;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.QuotaNode;
import io.kubequeue.scheduler.model.Resources;

/**
 * The charges of jobs kube-queue did not admit (started outside it: a mark removed by hand, a record it did not
 * write), and what the groups above each one leave out of them (issue 25, docs/behaviour.md §3): such a job is
 * charged in full at its own group, which then admits nothing more; the groups above count it only as far as its
 * group's max leaves room, so one team's job started past the queue cannot stop the other teams. What kube-queue
 * admitted counts in full everywhere, also above a max lowered since. The ledger keeps two: one for the max check
 * (every started-outside charge, capped at each group's max), one for the min check of non-preemptible requests
 * (the non-preemptible ones, capped at each group's min). The only owner of that state; only {@link QuotaLedger}
 * calls it, under the scheduler's lock.
 */
final class StartedOutsideCharges {

    /** The limit a group's started-outside charges are capped at above it: its max, or (non-preemptible) its min. */
    private final Function<QuotaNode, Resources> limit;

    /** @param limit the limit of a group that its started-outside charges count above it up to */
    StartedOutsideCharges(Function<QuotaNode, Resources> limit) {
        this.limit = limit;
    }

    /** A charge as the ledger added it. */
    private record Charge(String group, Resources amount) {
    }

    /** Per job: its started-outside charge, as it was added. */
    private final Map<JobKey, Charge> byJob = new HashMap<>();
    /** Per group: the sum of the started-outside charges made at it. */
    private final Map<String, Resources> byGroup = new HashMap<>();
    /** Per group: the part of its started-outside charges above its limit, which the groups above it do not count. */
    private final Map<String, Resources> hidden = new HashMap<>();
    /** Per node: the sum of {@link #hidden} over the groups strictly below it. */
    private final Map<String, Resources> hiddenBelow = new HashMap<>();

    /** This one's charges made the same as {@code original}'s (for {@code Scheduler.copy}): values only. */
    void copyFrom(StartedOutsideCharges original) {
        byJob.putAll(original.byJob);
        byGroup.putAll(original.byGroup);
        hidden.putAll(original.hidden);
        hiddenBelow.putAll(original.hiddenBelow);
    }

    /** A job started outside kube-queue, charged {@code amount} at {@code group}. */
    void add(JobKey job, String group, Resources amount) {
        byJob.put(job, new Charge(group, amount));
        byGroup.merge(group, amount, Resources::plus);
    }

    /** That job's charge taken off, if it was one; {@link #rehide} then works out the rest. */
    void remove(JobKey job) {
        Charge charge = byJob.remove(job);
        if (charge != null) {
            byGroup.computeIfPresent(charge.group(), (g, sum) -> {
                Resources left = sum.minus(charge.amount());
                return left.isEmpty() ? null : left;
            });
        }
    }

    void clear() {
        byJob.clear();
        byGroup.clear();
        hidden.clear();
        hiddenBelow.clear();
    }

    /** What the groups strictly below {@code node} leave out of their started-outside charges; null if nothing. */
    Resources hiddenBelow(String node) {
        return hiddenBelow.get(node);
    }

    /**
     * Works out again, along {@code path} (a group, then its ancestors), the part of each group's started-outside
     * charges above its limit ({@link #hidden}) and what the groups above leave out ({@link #hiddenBelow}): O(depth),
     * and nothing when no job started outside is charged.
     *
     * @param counted per node, its usage as a fit check counts it ({@link QuotaLedger#counted}), read as the walk goes
     */
    void rehide(List<QuotaNode> path, Function<String, Resources> counted) {
        if (byGroup.isEmpty() && hidden.isEmpty()) {
            return;
        }
        for (int i = 0; i < path.size(); i++) {
            QuotaNode node = path.get(i);
            Resources outside = byGroup.get(node.name());
            Resources before = hidden.getOrDefault(node.name(), Resources.NONE);
            Resources now = Resources.NONE;
            if (outside != null) {
                Resources used = counted.apply(node.name());
                Map<String, Long> above = new HashMap<>();
                for (Map.Entry<String, Long> r : outside.asMap().entrySet()) {
                    String k = r.getKey();
                    Resources cap = limit.apply(node);
                    if (cap.has(k) && used.get(k) > cap.get(k)) {
                        above.put(k, Math.min(r.getValue(), used.get(k) - cap.get(k)));
                    }
                }
                now = Resources.of(above);
            }
            if (now.equals(before)) {
                continue;
            }
            if (now.isEmpty()) {
                hidden.remove(node.name());
            } else {
                hidden.put(node.name(), now);
            }
            for (int j = i + 1; j < path.size(); j++) {
                String ancestor = path.get(j).name();
                Resources below = hiddenBelow.getOrDefault(ancestor, Resources.NONE).minus(before).plus(now);
                if (below.isEmpty()) {
                    hiddenBelow.remove(ancestor);
                } else {
                    hiddenBelow.put(ancestor, below);
                }
            }
        }
    }
}
