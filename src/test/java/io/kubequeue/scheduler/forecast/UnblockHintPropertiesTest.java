package io.kubequeue.scheduler.forecast;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.fabric8.kubernetes.api.model.Quantity;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

import io.kubequeue.scheduler.model.DryRun;
import io.kubequeue.scheduler.model.Explanation;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.JobObservation;
import io.kubequeue.scheduler.model.JobState;
import io.kubequeue.scheduler.model.JobStatus;
import io.kubequeue.scheduler.model.QuotaNode;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.Resources;

/**
 * The smallest change that unblocks (issue 30) is enough: on the generated trees of
 * {@link ReplayMatchesCyclesPropertiesTest} (cpu, memory and GPUs in min and max, groups over their min in one resource
 * and under it in another once jobs run; every policy, reclaim on and off, non-preemptible jobs), wherever the run
 * stands, every pending job that does not fit now is told at least one change, and raising each max and min its hint
 * names by the amount it names makes it fit, with every job admitted now still admitted.
 */
class UnblockHintPropertiesTest {

    private static final Pattern RAISE = Pattern.compile("raise (max|min) (\\S+) of quota group (\\S+) by (\\S+)");

    @Property(tries = 300)
    void raisingWhatTheHintNamesMakesTheJobFit(
            @ForAll("cases") ReplayMatchesCyclesPropertiesTest.Case c) {
        ReplayMatchesCyclesPropertiesTest.Cluster cluster = new ReplayMatchesCyclesPropertiesTest.Cluster(
                ReplayMatchesCyclesPropertiesTest.settings(c.policy(), c.reclaim()),
                ReplayMatchesCyclesPropertiesTest.tree(c.groups()));
        for (int i = 0; i < c.jobs().size(); i++) {
            cluster.submit(i, c.jobs().get(i));
        }
        cluster.cycle();
        for (int i = 0; i < c.copyAfter() && cluster.step(); i++) {
            // wherever the run stands
        }
        for (JobStatus job : cluster.scheduler.jobs()) {
            if (job.state() == JobState.ADMITTED || job.state() == JobState.HELD) {
                continue;
            }
            JobObservation seen = cluster.jobs.get(job.key());
            DryRun now = cluster.scheduler.dryRun(seen);
            List<Explanation> hint = cluster.scheduler.unblock(job.key());
            assertTrue(now.fitsNow() || !hint.isEmpty(), job.key() + " does not fit and is told nothing: " + now);
            if (now.fitsNow()) {
                continue;
            }
            QuotaTree raised = raise(cluster.scheduler.tree(), hint);
            var copy = cluster.scheduler.copy(cluster.clock);
            copy.replaceTree(raised);
            DryRun after = copy.dryRun(seen);
            assertTrue(after.fitsNow(), job.key() + " told " + hint + " still does not fit: " + after.reason());
        }
    }

    @net.jqwik.api.Provide
    net.jqwik.api.Arbitrary<ReplayMatchesCyclesPropertiesTest.Case> cases() {
        return new ReplayMatchesCyclesPropertiesTest().cases();
    }

    /** The tree with every max and min the hint names raised by the amount it names. */
    static QuotaTree raise(QuotaTree tree, List<Explanation> hint) {
        List<QuotaNode> nodes = new ArrayList<>(tree.nodes());
        for (Explanation line : hint) {
            Matcher m = RAISE.matcher(line.toString());
            if (!m.matches()) {
                continue; // a job ending, room given back: not a change of the tree
            }
            String resource = m.group(2);
            long by = amount(resource, m.group(4));
            for (int i = 0; i < nodes.size(); i++) {
                QuotaNode n = nodes.get(i);
                if (n.name().equals(m.group(3))) {
                    Resources min = m.group(1).equals("min") ? n.min().with(resource, n.min().get(resource) + by)
                            : n.min();
                    Resources max = m.group(1).equals("max") ? n.max().with(resource, n.max().get(resource) + by)
                            : n.max();
                    nodes.set(i, new QuotaNode(n.name(), n.parentName(), n.namespaces(), min, max));
                }
            }
        }
        return new QuotaTree(nodes);
    }

    /** An amount as {@code Resources.format} writes it, back in the core's units (millicores, bytes, counts). */
    static long amount(String resource, String text) {
        BigDecimal value = Quantity.getAmountInBytes(new Quantity(text));
        return (resource.equals(Resources.CPU) ? value.movePointRight(3) : value).longValueExact();
    }

}
