package io.kubequeue.quota;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

import jakarta.inject.Singleton;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kubequeue.config.KubeQueueConfig;
import io.kubequeue.config.StrictBooleanConverter;
import io.kubequeue.input.ManifestBounds;
import io.kubequeue.job.EstimateAnswer;
import io.kubequeue.quota.elastic.ElasticQuotaTree;
import io.kubequeue.quota.elastic.ElasticQuotaTreeSource;
import io.kubequeue.quota.resourcequota.ResourceQuotaSource;
import io.kubequeue.scheduler.Forecasting;
import io.kubequeue.scheduler.ReadViews;
import io.kubequeue.scheduler.model.Estimate;
import io.kubequeue.scheduler.model.JobKey;
import io.kubequeue.scheduler.model.QuotaNode;
import io.kubequeue.scheduler.model.QuotaTree;
import io.kubequeue.scheduler.model.SchedulerSettings;
import io.kubequeue.scheduler.model.SchedulingPolicy;
import io.kubequeue.scheduler.model.WhatIf;
import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * What a change of the quota groups or of the policy switches would do to the queue (issue 30), for every API that
 * asks it: the read API ({@code POST /api/v1/what-if}) and the visibility API ({@code whatifs}), each of which
 * authorises its caller its own way and says which jobs the caller may see. The body is an ElasticQuotaTree (under
 * {@code QueueGroupPlugin=elasticquota}) or ResourceQuotas, one or a {@code v1 List} (under {@code resourcequota}: the
 * given ones replace those of their namespaces), read by fabric8 and turned into quota groups by the quota plugin's
 * own code, so a tree the plugin would refuse is refused here with the plugin's words. Every pending job is replayed
 * as things are and under the change ({@link Forecasting#whatIf}); nothing is written to the cluster.
 */
@Singleton
public class WhatIfs {

    private final ReadViews scheduler;
    private final Forecasting forecasts;
    private final KubernetesClient client;
    private final boolean enabled;
    private final boolean strictPriority;
    private final boolean strictConsistency;

    @jakarta.inject.Inject
    public WhatIfs(ReadViews scheduler, Forecasting forecasts, KubernetesClient client, KubeQueueConfig config) {
        this(scheduler, forecasts, client, config.estimates().enabled(), config.strictPriority(),
                config.strictConsistency());
    }

    /**
     * @param enabled           {@code kube-queue.estimates.enabled}: false answers every question with {@link Refused}
     *                          404
     * @param strictPriority    the switch in force, kept under the change unless the question sets it
     * @param strictConsistency likewise
     */
    public WhatIfs(ReadViews scheduler, Forecasting forecasts, KubernetesClient client, boolean enabled,
                   boolean strictPriority, boolean strictConsistency) {
        this.scheduler = scheduler;
        this.forecasts = forecasts;
        this.client = client;
        this.enabled = enabled;
        this.strictPriority = strictPriority;
        this.strictConsistency = strictConsistency;
        client.getKubernetesSerialization().registerKubernetesResource(ElasticQuotaTree.class);
    }

    /** A question refused: the HTTP status (400 for the body or a switch, 404 with estimates off) and why. */
    public static final class Refused extends RuntimeException {
        private final int status;

        Refused(int status, String message) {
            super(message, null, false, false);
            this.status = status;
        }

        /** 400 or 404. */
        public int status() {
            return status;
        }
    }

    /**
     * The answer, as the read API serves it and the visibility API's {@code WhatIf} carries it.
     *
     * @param computedAt when the state was copied (RFC 3339, UTC, to the second)
     * @param jobs       the pending jobs the caller may see, each now and under the change
     * @param groups     per quota group (a job's group now), how many of its pending jobs start earlier or later
     *                   under the change, and the sum of the shifts; every group, whoever asks
     */
    @RegisterForReflection // serialized by Jackson, also in the native image
    public record Answer(String computedAt, List<Job> jobs, List<Group> groups) {
    }

    /**
     * One pending job now and under the change.
     *
     * @param kind          e.g. {@code Job}
     * @param namespace     its namespace
     * @param name          its name
     * @param group         its quota group now; null if none
     * @param position      its place in its group's queue now, from 1 (0: no group)
     * @param eta           its expected start now (RFC 3339); null unless estimated
     * @param state         its estimate's state now ({@link Estimate.State}); null if it has none
     * @param groupAfter    its quota group under the change; null if none
     * @param positionAfter its place under the change (0: no group)
     * @param etaAfter      its expected start under the change; null unless estimated
     * @param stateAfter    its estimate's state under the change
     */
    @RegisterForReflection
    public record Job(String kind, String namespace, String name, String group, int position, String eta,
                      String state, String groupAfter, int positionAfter, String etaAfter, String stateAfter) {
    }

    /**
     * One quota group's jobs, summed.
     *
     * @param group        the group
     * @param earlier      its pending jobs that would start earlier (or start where now they would not)
     * @param later        those that would start later (or no longer start)
     * @param shiftSeconds over its jobs estimated both times, the sum of (start under the change − start now),
     *                     seconds; negative is a gain
     */
    @RegisterForReflection
    public record Group(String group, int earlier, int later, long shiftSeconds) {
    }

    /**
     * Checks that the question can be answered at all; callers call it after authenticating, before parsing.
     *
     * @throws Refused 404 with {@code kube-queue.estimates.enabled=false}
     */
    public void requireEnabled() {
        if (!enabled) {
            throw new Refused(404, "start-time estimates are off (kube-queue.estimates.enabled=false)");
        }
    }

    /**
     * The answer to one question.
     *
     * @param body                   the quota objects (YAML or JSON); null or blank: the groups as they are
     * @param strictPriorityAfter    {@code true}/{@code false} (any case), or null to keep the switch in force
     * @param strictConsistencyAfter likewise
     * @param mayList                whether the caller may see a job (the others are left out of {@code jobs})
     * @throws Refused 400 naming the problem: not a manifest, past the bounds of {@link ManifestBounds}, no quota
     *                 object, the wrong kind for the plugin in force, a tree the plugin refuses, a switch that is not
     *                 true or false; 404 with estimates off
     */
    public Answer answer(String body, String strictPriorityAfter, String strictConsistencyAfter,
                         Predicate<JobKey> mayList) {
        requireEnabled();
        SchedulerSettings settings = settings(strictPriorityAfter, strictConsistencyAfter);
        QuotaTree tree = body == null || body.isBlank() ? null : tree(body);
        WhatIf answer = forecasts.whatIf(tree, settings);
        List<Job> jobs = new ArrayList<>();
        for (WhatIf.Job j : answer.jobs()) {
            if (!mayList.test(j.key())) {
                continue;
            }
            jobs.add(new Job(j.key().kind(), j.key().namespace(), j.key().name(), j.group(), j.position(),
                    eta(j.estimate()), state(j.estimate()), j.groupAfter(), j.positionAfter(), eta(j.estimateAfter()),
                    state(j.estimateAfter())));
        }
        List<Group> groups = answer.groups().stream()
                .map(g -> new Group(g.group(), g.earlier(), g.later(), g.shiftSeconds())).toList();
        return new Answer(EstimateAnswer.time(answer.computedAt()), jobs, groups);
    }

    /** The settings under the change; null if neither switch is given. */
    private SchedulerSettings settings(String strictPriorityAfter, String strictConsistencyAfter) {
        if (strictPriorityAfter == null && strictConsistencyAfter == null) {
            return null;
        }
        boolean priority = strictPriorityAfter == null ? strictPriority
                : bool("StrictPriority", strictPriorityAfter);
        boolean consistency = strictConsistencyAfter == null ? strictConsistency
                : bool("StrictConsistency", strictConsistencyAfter);
        SchedulerSettings now = scheduler.settings();
        return new SchedulerSettings(SchedulingPolicy.of(priority, consistency), now.initialBackoff(),
                now.maxBackoff(), now.reclaim(), now.admissionTimeout());
    }

    /** As the settings read the switch ({@link StrictBooleanConverter}): true or false, any case. */
    private static boolean bool(String name, String value) {
        try {
            return new StrictBooleanConverter().convert(value);
        } catch (RuntimeException e) {
            throw badRequest(name + ": invalid value '" + brief(value) + "'; valid values: true, false");
        }
    }

    /** The quota groups the body declares, as the plugin in force would read them. */
    private QuotaTree tree(String body) {
        List<HasMetadata> objects;
        try {
            ManifestBounds.check(body);
            objects = client.load(new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8))).items();
        } catch (RuntimeException e) { // KubernetesClientException, IllegalArgumentException, or any other
            throw badRequest("not a Kubernetes manifest: " + brief(e.getMessage()));
        }
        List<ElasticQuotaTree> trees = new ArrayList<>();
        List<ResourceQuota> quotas = new ArrayList<>();
        for (HasMetadata o : objects) {
            if (o instanceof ElasticQuotaTree t) {
                trees.add(t);
            } else if (o instanceof ResourceQuota q) {
                quotas.add(q);
            } else if (o != null) {
                throw badRequest("a " + o.getKind() + " is no quota object: send an ElasticQuotaTree or ResourceQuotas");
            }
        }
        QuotaTree current = scheduler.tree();
        boolean perNamespace = current.groupsAreNamespaces();
        try {
            if (!perNamespace) {
                if (trees.size() != 1 || !quotas.isEmpty()) {
                    throw badRequest("QueueGroupPlugin=elasticquota: send exactly one ElasticQuotaTree (got "
                            + trees.size() + " trees and " + quotas.size() + " ResourceQuotas)");
                }
                return keepingTimeouts(ElasticQuotaTreeSource.toQuotaTree(trees.get(0)), current);
            }
            if (quotas.isEmpty() || !trees.isEmpty()) {
                throw badRequest("QueueGroupPlugin=resourcequota: send ResourceQuotas, one or a v1 List (got "
                        + trees.size() + " ElasticQuotaTrees and " + quotas.size() + " ResourceQuotas)");
            }
            return ResourceQuotaSource.replacing(current, quotas);
        } catch (IllegalArgumentException e) {
            throw badRequest("invalid quota groups: " + brief(e.getMessage()));
        }
    }

    /** The tree's groups, each with the admission timeout its namesake has now (the body's annotation is not read). */
    private static QuotaTree keepingTimeouts(QuotaTree tree, QuotaTree current) {
        List<QuotaNode> nodes = tree.nodes().stream().map(n -> current.nodes().stream()
                .filter(c -> c.name().equals(n.name())).findFirst()
                .map(c -> n.withAdmissionTimeout(c.admissionTimeout())).orElse(n)).toList();
        return new QuotaTree(nodes);
    }

    private static String eta(Estimate e) {
        return e == null ? null : EstimateAnswer.time(e.eta());
    }

    private static String state(Estimate e) {
        return e == null ? null : e.state().name();
    }

    private static Refused badRequest(String message) {
        return new Refused(400, message);
    }

    /** At most one line of 300 characters (a message may quote the body). */
    private static String brief(String message) {
        if (message == null) {
            return "unreadable";
        }
        message = message.lines().findFirst().orElse(message);
        return message.length() > 300 ? message.substring(0, 300) + "..." : message;
    }
}
