package io.kubequeue.input;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.util.JsonParserDelegate;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kubequeue.input.InvalidJobException;
import io.kubequeue.job.JobKind;
import io.kubequeue.job.JobKinds;
import io.kubequeue.job.argo.Workflow;
import io.kubequeue.job.argo.WorkflowKind;
import io.kubequeue.operator.Manifests;
import io.kubequeue.quota.AdmissionTimeoutAnnotations;
import io.kubequeue.resources.Quantities;
import io.kubequeue.quota.elastic.ElasticQuotaTree;
import io.kubequeue.quota.elastic.ElasticQuotaTreeSource;
import io.kubequeue.quota.resourcequota.ResourceQuotaSource;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.testing.RecordingEvents;

/**
 * The hostile-input contract as checks, shared by the jqwik properties ({@link HostileInputPropertiesTest}) and the
 * Jazzer fuzz target ({@link HostileInputFuzzTest}): each parser of tenant input is given one input, and
 * <ul>
 *   <li>no exception escapes but the documented one (IllegalArgumentException from the quota parsers and the
 *       bounds, InvalidJobException from a kind's request, a KubernetesClientException for text that is not an
 *       object at all); anything else is thrown on as an AssertionError;</li>
 *   <li>the work is counted, not timed: Jackson tokens read per object (a counting parser), events per manifest,
 *       the digits and scale of every amount handed to BigDecimal.</li>
 * </ul>
 */
final class HostileChecks {

    /** The client's serialization as kube-queue's Quarkus client has it: JsonBounds on its mapper. */
    static final ObjectMapper MAPPER = JsonBounds.apply(new ObjectMapper());
    static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization(MAPPER, false);
    /** Never connects: the kinds and the manifest reader use its serialization only. */
    static final KubernetesClient CLIENT = new KubernetesClientBuilder().withKubernetesSerialization(SERIALIZATION)
            .build();
    static final List<JobKind<?>> KINDS = JobKinds.all(CLIENT);
    static final WorkflowKind WORKFLOW = new WorkflowKind();
    /** A quantity within the bounds has at most this many digits once fabric8 has multiplied its suffix in. */
    static final int MAX_AMOUNT_DIGITS = Quantities.MAX_LENGTH + 20;
    /** ...and a scale at most this far from 0 either way. */
    static final int MAX_AMOUNT_SCALE = Quantities.MAX_LENGTH + Quantities.MAX_EXPONENT + 20;

    static {
        Manifests.registerKinds(CLIENT);
    }

    private HostileChecks() {
    }

    /** The ResourceQuota plugin's reading of quotas into groups, without a cluster. */
    static final class QuotaGroups extends ResourceQuotaSource {
        QuotaGroups() {
            super(null, new RecordingEvents(), java.time.Duration.ZERO, (ns, seen) -> Resources.NONE, null);
        }

        void groups(List<ResourceQuota> quotas) {
            build(quotas, null);
        }
    }

    /** Jackson tokens read since the parser was made. */
    static final class CountingParser extends JsonParserDelegate {
        long tokens;

        CountingParser(JsonParser parser) {
            super(parser);
        }

        @Override
        public JsonToken nextToken() throws IOException {
            tokens++;
            return super.nextToken();
        }
    }

    /** A quantity, as a request and as a limit of cpu and of memory. */
    static void quantity(String text) {
        Quantity quantity;
        try {
            quantity = new Quantity(text);
        } catch (IllegalArgumentException e) {
            return; // fabric8 refuses to split it: refused before any arithmetic
        }
        BigDecimal amount;
        try {
            amount = Quantities.amount(quantity);
        } catch (IllegalArgumentException refused) {
            return;
        }
        check(amount.precision() <= MAX_AMOUNT_DIGITS, () -> text + ": " + amount.precision() + " digits");
        check(Math.abs(amount.scale()) <= MAX_AMOUNT_SCALE, () -> text + ": scale " + amount.scale());
        for (String resource : new String[] {"cpu", "memory"}) {
            for (boolean limit : new boolean[] {false, true}) {
                try {
                    long units = limit ? Quantities.toLimitUnits(resource, quantity)
                            : Quantities.toUnits(resource, quantity);
                    check(units >= 0, () -> text + " gave " + units);
                } catch (IllegalArgumentException refused) {
                    // documented
                }
            }
        }
    }

    /** A Workflow's {@code kube-queue/min-resources}: read as a request, and pruned. */
    static void minResources(String text) {
        Workflow workflow = new Workflow();
        workflow.setMetadata(new ObjectMetaBuilder().withName("w").withNamespace("team-a")
                .withAnnotations(Map.of(WorkflowKind.MIN_RESOURCES, text)).build());
        try {
            Resources request = WORKFLOW.request(workflow);
            check(request.asMap().values().stream().allMatch(v -> v >= 0), () -> "negative request from " + text);
        } catch (InvalidJobException refused) {
            check(refused.getMessage().length() <= 4 * InvalidJobException.SHOWN + 1_000,
                    () -> "message of " + refused.getMessage().length() + " characters");
        }
        WORKFLOW.pruned(workflow);
    }

    /** A flat YAML map with bounds: only IllegalArgumentException. */
    static void flatYaml(String text) {
        try {
            BoundedYaml.flatMap(text, 4096, 64);
        } catch (IllegalArgumentException refused) {
            // documented
        }
    }

    /** The tree's {@code kube-queue/admission-timeouts}: never throws; the bad entries are Warnings. */
    static void admissionTimeouts(String text) {
        ElasticQuotaTree tree = new ElasticQuotaTree();
        tree.setMetadata(new ObjectMetaBuilder().withName("t").withNamespace("kube-system")
                .withAnnotations(Map.of(AdmissionTimeoutAnnotations.TREE, text)).build());
        new AdmissionTimeoutAnnotations(new RecordingEvents()).ofTree(tree, List.of("root", "root.team-a"));
        ResourceQuota quota = new ResourceQuota();
        quota.setMetadata(new ObjectMetaBuilder().withName("q").withNamespace("team-a")
                .withAnnotations(Map.of(AdmissionTimeoutAnnotations.QUOTA, text)).build());
        new AdmissionTimeoutAnnotations(new RecordingEvents()).ofQuota(quota);
    }

    /**
     * A job of one kind, as its informer would hand it over: read with a counting parser (at most one token per
     * character, plus the end), then every method of its adapter.
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static void job(JobKind kind, String json) {
        HasMetadata job = (HasMetadata) read(json, kind.type());
        if (job == null) {
            return;
        }
        if (job.getMetadata() == null) {
            job.setMetadata(new ObjectMetaBuilder().withName("j").withNamespace("team-a").build());
        }
        adapter(kind, job);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static void adapter(JobKind kind, HasMetadata job) {
        kind.suspendMarks(job);
        kind.held(job);
        kind.started(job);
        kind.finished(job);
        kind.priority(job);
        kind.podLabels(job);
        try {
            kind.request(job);
        } catch (InvalidJobException refused) {
            // documented
        }
        HasMetadata copy = (HasMetadata) kind.pruned(job);
        check(kind.held(copy) == kind.held(job), () -> "the cached copy says otherwise on held");
        check(kind.priority(copy).equals(kind.priority(job)), () -> "the cached copy says otherwise on priority");
    }

    /** An ElasticQuotaTree: only IllegalArgumentException. */
    static void tree(String json) {
        ElasticQuotaTree tree = read(json, ElasticQuotaTree.class);
        if (tree == null) {
            return;
        }
        try {
            ElasticQuotaTreeSource.toQuotaTree(tree);
        } catch (IllegalArgumentException refused) {
            // documented: InvalidQuotaTree
        }
    }

    /** A ResourceQuota: its limits and groups never throw (a bad amount is an InvalidQuota, held to zero). */
    static void resourceQuota(String json) {
        ResourceQuota quota = read(json, ResourceQuota.class);
        if (quota == null) {
            return;
        }
        if (quota.getMetadata() == null || quota.getMetadata().getNamespace() == null) {
            quota.setMetadata(new ObjectMetaBuilder().withName("q").withNamespace("team-a").build());
        }
        new QuotaGroups().groups(List.of(quota));
    }

    /** A manifest sent to the dry run: bounded (one pass), then read as the dry run reads it, then each job's adapter. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static void manifest(String text) {
        long steps;
        try {
            steps = ManifestBounds.check(text);
        } catch (IllegalArgumentException refused) {
            return;
        }
        check(steps <= text.length() + 8, () -> steps + " steps for " + text.length() + " characters");
        List<HasMetadata> objects;
        try {
            objects = Manifests.read(CLIENT, new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)));
        } catch (RuntimeException refused) {
            return; // the dry run answers 400 for whatever fabric8 cannot read (KubernetesClientException, snakeyaml's)
        }
        for (HasMetadata object : objects) {
            if (object == null || object.getMetadata() == null) {
                continue;
            }
            for (JobKind kind : KINDS) {
                if (kind.type().isInstance(object)) {
                    adapter(kind, object);
                }
            }
        }
    }

    /** The object, read with a counting parser; null when it is not one (fabric8's informer would not see it). */
    static <T> T read(String json, Class<T> type) {
        try (CountingParser parser = new CountingParser(MAPPER.createParser(json))) {
            T value;
            try {
                value = MAPPER.readValue(parser, type); // as an informer reads a list item or a watch event
            } catch (IOException | RuntimeException notAnObject) {
                // Jackson or fabric8 cannot make the object: the API server would not have stored it either
                return null;
            }
            long tokens = parser.tokens;
            check(tokens <= json.length() + 2, () -> tokens + " tokens for " + json.length() + " characters");
            return value;
        } catch (IOException e) {
            return null;
        }
    }

    static void check(boolean holds, java.util.function.Supplier<String> what) {
        if (!holds) {
            throw new AssertionError(what.get());
        }
    }
}
