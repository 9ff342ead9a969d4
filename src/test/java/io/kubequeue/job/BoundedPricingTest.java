package io.kubequeue.job;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kubequeue.testing.Declarations;
import io.kubequeue.input.InvalidJobException;
import io.kubequeue.job.batch.BatchJobKind;
import io.kubequeue.job.declared.DeclaredJobKind;
import io.kubequeue.job.declared.QueuedKindSpec;
import io.kubequeue.resources.PodDefaults;
import io.kubequeue.resources.PodRequests;
import io.kubequeue.scheduler.model.Resources;

/**
 * A job's pricing costs time linear in the job, whatever a tenant writes (docs/security.md, "Hostile input: the
 * bounds"): a bounded number of resource names per pod and per job, each template priced once however many items
 * name it, and field locations that never copy a tenant's long map key whole.
 */
class BoundedPricingTest {

    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    private static ObjectNode requests(String prefix, int count) {
        ObjectNode requests = JSON.objectNode();
        for (int i = 0; i < count; i++) {
            requests.put(prefix + i, "1");
        }
        return requests;
    }

    private static ObjectNode template(ObjectNode requests) {
        ObjectNode template = JSON.objectNode();
        ObjectNode container = template.putObject("spec").putArray("containers").addObject();
        container.put("name", "c");
        container.putObject("resources").set("requests", requests);
        return template;
    }

    private static GenericKubernetesResource declaredJob(ObjectNode replicaSpecs) {
        ObjectNode job = JSON.objectNode();
        job.put("apiVersion", "example.com/v1");
        job.put("kind", "MapJob");
        job.putObject("metadata").put("name", "j").put("namespace", "team-a");
        ObjectNode spec = job.putObject("spec");
        spec.put("suspend", true);
        spec.set("replicaSpecs", replicaSpecs);
        return SERIALIZATION.convertValue(job, GenericKubernetesResource.class);
    }

    private static DeclaredJobKind byMap() {
        return DeclaredJobKind.of("test", SERIALIZATION.unmarshal(Declarations.BY_MAP, QueuedKindSpec.class), SERIALIZATION);
    }

    /**
     * A batch Job whose container requests 100,000 distinct resource names (a 1.5 MiB object holds about 60,000) is
     * refused at its requests field; it was priced, at a cost quadratic in the names, on the informer's thread.
     */
    @Test
    void aBatchJobRequestingAHundredThousandResourcesIsRefusedAtItsRequests() {
        Map<String, Quantity> many = new LinkedHashMap<>();
        for (int i = 0; i < 100_000; i++) {
            many.put("example.com/r" + i, new Quantity("1"));
        }
        Job job = new JobBuilder().withNewMetadata().withName("j").withNamespace("team-a").endMetadata()
                .withNewSpec().withNewTemplate().withNewSpec().addNewContainer().withName("c").withNewResources()
                .withRequests(many).endResources().endContainer().endSpec().endTemplate().endSpec().build();
        InvalidJobException e = assertThrows(InvalidJobException.class, () -> new BatchJobKind().request(job));
        assertTrue(e.getMessage().startsWith("spec.template.spec.containers[0].resources.requests: "), e.getMessage());
    }

    /** The same for a declared kind: refused at the template's requests field, as the built-in kinds refuse it. */
    @Test
    void aDeclaredJobRequestingAHundredThousandResourcesIsRefusedAtItsRequests() {
        ObjectNode specs = JSON.objectNode();
        specs.putObject("Worker").put("replicas", 2).set("template", template(requests("example.com/r", 100_000)));
        InvalidJobException e = assertThrows(InvalidJobException.class, () -> byMap().request(declaredJob(specs)));
        assertTrue(e.getMessage().startsWith(
                "spec.replicaSpecs.Worker.template.spec.containers[0].resources.requests: "), e.getMessage());
    }

    /**
     * A job's pod sets together name at most {@link PodSets#MAX_RESOURCES} distinct resources: each pod within its
     * own bound, the job is refused at the pod set that goes past the job's.
     */
    @Test
    void aJobsPodSetsTogetherNameABoundedNumberOfResources() {
        int perPod = PodRequests.MAX_RESOURCES;
        int sets = PodSets.MAX_RESOURCES / perPod;
        ObjectNode atTheBound = JSON.objectNode();
        for (int i = 0; i < sets; i++) {
            atTheBound.putObject("R" + i).set("template", template(requests("s" + i + ".example.com/r", perPod)));
        }
        Resources request = assertDoesNotThrow(() -> byMap().request(declaredJob(atTheBound)));
        assertEquals(PodSets.MAX_RESOURCES, request.asMap().size());

        ObjectNode over = atTheBound.deepCopy();
        over.putObject("Last").set("template", template(requests("last.example.com/r", 1)));
        InvalidJobException e = assertThrows(InvalidJobException.class, () -> byMap().request(declaredJob(over)));
        assertTrue(e.getMessage().startsWith("spec.replicaSpecs.Last.template: "), e.getMessage());
        assertTrue(e.getMessage().contains("at most " + PodSets.MAX_RESOURCES), e.getMessage());
    }

    /** Counts how many pod templates are read (each is then priced). */
    private static final class CountingSerialization extends KubernetesSerialization {
        int templates;

        @Override
        public <T> T convertValue(Object value, Class<T> type) {
            if (type == PodTemplateSpec.class) {
                templates++;
            }
            return super.convertValue(value, type);
        }
    }

    /**
     * 1,000 items that all name one template by path ({@code templatePathFrom}, AppWrapper's {@code podSets[*].path}):
     * the template is read and priced once, and charged for every item. It was read and priced 1,000 times, so a job
     * cost its items × its template's size.
     */
    @Test
    void aTemplateNamedByAThousandItemsIsPricedOnce() {
        PodSets sets = new PodSets(List.of(new PodSets.Rule("podSets", FieldPath.parse("spec.podSets[*]"), null,
                FieldPath.parse("path"), null, false,
                List.of(new PodSets.Count(FieldPath.parse("replicas"), 1, null)), List.of())));
        ObjectNode job = JSON.objectNode();
        ObjectNode spec = job.putObject("spec");
        ObjectNode cpu = JSON.objectNode().put("cpu", "1");
        spec.set("template", template(cpu));
        ArrayNode items = spec.putArray("podSets");
        for (int i = 0; i < 1_000; i++) {
            items.addObject().put("path", "spec.template").put("replicas", 2);
        }
        CountingSerialization counting = new CountingSerialization();
        assertEquals(Resources.of("cpu", 2_000_000L), sets.request(job, PodDefaults.NONE, counting));
        assertEquals(1, counting.templates);

        // a bad template named by every item is still refused, at the template
        cpu.put("cpu", "lots");
        InvalidJobException e = assertThrows(InvalidJobException.class,
                () -> sets.request(job, PodDefaults.NONE, new CountingSerialization()));
        assertTrue(e.getMessage().startsWith("spec.template.spec.containers[0].resources.requests.cpu: "),
                e.getMessage());
    }

    /**
     * A map key reached by {@code *} is the tenant's and may be about 1 MB long: the locations of the fields under
     * it, and the messages naming them, hold a bounded part of it. Every {@code [i]} under such a key copied it whole
     * (1,000 items: about 1 GB).
     */
    @Test
    void aMegabyteMapKeyIsNotCopiedIntoEveryLocation() {
        String key = "k".repeat(1 << 20);
        ObjectNode job = JSON.objectNode();
        ArrayNode items = job.putObject("spec").putObject("sets").putObject(key).putArray("items");
        for (int i = 0; i < 1_000; i++) {
            ObjectNode item = items.addObject();
            if (i == 999) {
                item.put("replicas", "many");
            } else {
                item.put("replicas", 1);
            }
        }
        List<FieldPath.Match> matches = FieldPath.parse("spec.sets.*.items[*]").select(job, "");
        assertEquals(1_000, matches.size());
        for (FieldPath.Match match : matches) {
            assertTrue(match.at().length() < 2 * InvalidJobException.SHOWN, match.at().length() + " characters");
            assertTrue(match.at().startsWith("spec.sets.kkkk"), match.at().substring(0, 20));
        }
        assertTrue(matches.get(999).at().endsWith(".items[999]"), matches.get(999).at());

        PodSets sets = new PodSets(List.of(new PodSets.Rule("sets", FieldPath.parse("spec.sets.*.items[*]"),
                FieldPath.parse("template"), null, null, true,
                List.of(new PodSets.Count(FieldPath.parse("replicas"), 1, null)), List.of())));
        InvalidJobException e = assertThrows(InvalidJobException.class,
                () -> sets.request(job, PodDefaults.NONE, SERIALIZATION));
        assertTrue(e.getMessage().length() < 4 * InvalidJobException.SHOWN, e.getMessage());
        assertTrue(e.getMessage().startsWith("spec.sets.kkkk"), e.getMessage());
    }

    /** A key of ordinary length is named whole, as before. */
    @Test
    void anOrdinaryMapKeyIsNamedWhole() {
        String key = "Worker-" + "x".repeat(100);
        JsonNode job = SERIALIZATION.unmarshal("{\"spec\": {\"sets\": {\"" + key + "\": {\"items\": [{}, {}]}}}}",
                JsonNode.class);
        List<FieldPath.Match> matches = FieldPath.parse("spec.sets.*.items[*]").select(job, "");
        assertEquals("spec.sets." + key + ".items[1]", matches.get(1).at());
    }
}
