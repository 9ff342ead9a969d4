package io.kubequeue.resources;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.LimitRange;
import io.fabric8.kubernetes.api.model.LimitRangeBuilder;
import io.fabric8.kubernetes.api.model.LimitRangeItem;
import io.fabric8.kubernetes.api.model.LimitRangeItemBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.node.v1.RuntimeClassBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.kubequeue.resources.PodRequests;
import io.kubequeue.scheduler.model.Resources;
import io.kubequeue.testing.StrictApiServer;

/**
 * kube-queue prices a pod template as the API server admits a pod made from it: the same request as the strict API
 * server's pod (its defaulting, LimitRanger and RuntimeClass plugins), for templates and LimitRanges of every shape;
 * with several LimitRanges in one namespace, never less (the server's pick depends on its list order).
 */
class PodDefaultsTest {

    private static final Map<String, Map<String, Quantity>> OVERHEADS = Map.of("kata",
            Map.of("cpu", new Quantity("250m"), "memory", new Quantity("120Mi")));
    private static KubernetesMockServer server;
    private static KubernetesClient client;
    private static final AtomicInteger NAMESPACES = new AtomicInteger();

    @BeforeContainer
    static void startServer() {
        server = StrictApiServer.started();
        client = server.createClient();
        client.resource(new RuntimeClassBuilder().withNewMetadata().withName("kata").endMetadata().withHandler("kata")
                .withNewOverhead().withPodFixed(OVERHEADS.get("kata")).endOverhead().build()).create();
        client.resource(new RuntimeClassBuilder().withNewMetadata().withName("runc").endMetadata().withHandler("runc")
                .build()).create();
    }

    @AfterContainer
    static void stopServer() {
        client.close();
        server.destroy();
    }

    // ---- the rule, case by case --------------------------------------------------------------------------------

    private static LimitRange limitRange(LimitRangeItem... items) {
        return new LimitRangeBuilder().withNewMetadata().withName("l").endMetadata().withNewSpec().withLimits(items)
                .endSpec().build();
    }

    private static Map<String, Quantity> q(String... nameValue) {
        Map<String, Quantity> result = new LinkedHashMap<>();
        for (int i = 0; i < nameValue.length; i += 2) {
            result.put(nameValue[i], new Quantity(nameValue[i + 1]));
        }
        return result;
    }

    private static PodSpec oneContainer(Map<String, Quantity> requests, Map<String, Quantity> limits) {
        return new PodSpecBuilder().addNewContainer().withName("c").withNewResources().withRequests(requests)
                .withLimits(limits).endResources().endContainer().build();
    }

    @Test
    void aDefaultLimitAloneGivesTheRequestTooAndMaxOrMinStandInAsTheServerDefaultsThem() {
        assertEquals(q("cpu", "2"), ContainerDefaults.of(limitRange(new LimitRangeItemBuilder().withType("Container")
                .withDefault(q("cpu", "2")).build())).requests());
        ContainerDefaults maxMin = ContainerDefaults.of(limitRange(new LimitRangeItemBuilder().withType("Container")
                .withMax(q("cpu", "4")).withMin(q("memory", "64Mi")).build()));
        assertEquals(q("cpu", "4"), maxMin.limits(), "max stands in for a missing default limit");
        assertEquals(q("cpu", "4", "memory", "64Mi"), maxMin.requests(), "then the default limit, then min");
        assertTrue(ContainerDefaults.of(limitRange(new LimitRangeItemBuilder().withType("Pod")
                .withMax(q("cpu", "4")).build())).isEmpty(), "a Pod item gives no container defaults");
    }

    @Test
    void aContainersOwnLimitIsItsRequestBeforeTheDefaultRequestAndInitContainersGetDefaultsToo() {
        PodDefaults defaults = new PodDefaults(ContainerDefaults.of(limitRange(new LimitRangeItemBuilder()
                .withType("Container").withDefault(q("cpu", "2")).withDefaultRequest(q("cpu", "1")).build())),
                Map.of());
        assertEquals(3000, PodRequests.of(oneContainer(q(), q("cpu", "3")), "spec", defaults).get("cpu"));
        assertEquals(1000, PodRequests.of(oneContainer(q(), q()), "spec", defaults).get("cpu"));
        PodSpec withInit = new PodSpecBuilder(oneContainer(q("cpu", "500m"), q())).addNewInitContainer()
                .withName("init").endInitContainer().build();
        assertEquals(1000, PodRequests.of(withInit, "spec", defaults).get("cpu"),
                "max(500m, init container's default 1)");
    }

    @Test
    void severalLimitRangesGiveTheLargestDefaultOfEach() {
        ContainerDefaults a = ContainerDefaults.of(limitRange(new LimitRangeItemBuilder().withType("Container")
                .withDefaultRequest(q("cpu", "1", "memory", "2Gi")).build()));
        ContainerDefaults b = ContainerDefaults.of(limitRange(new LimitRangeItemBuilder().withType("Container")
                .withDefaultRequest(q("cpu", "1500m", "memory", "1Gi")).build()));
        assertEquals(q("cpu", "1500m", "memory", "2Gi"), a.largest(b).requests());
        assertEquals(a.largest(b), b.largest(a));
    }

    @Test
    void aRuntimeClassOverheadReplacesTheTemplatesAndAnUnknownClassAddsNothing() {
        PodDefaults defaults = new PodDefaults(ContainerDefaults.NONE, OVERHEADS);
        PodSpec kata = new PodSpecBuilder(oneContainer(q("cpu", "1"), q())).withRuntimeClassName("kata").build();
        assertEquals(1250, PodRequests.of(kata, "spec", defaults).get("cpu"));
        PodSpec unknown = new PodSpecBuilder(kata).withRuntimeClassName("gvisor").build();
        assertSame(unknown, defaults.applyTo(unknown), "nothing applies: the template itself");
        assertEquals(1000, PodRequests.of(unknown, "spec", defaults).get("cpu"));
    }

    @Test
    void aQuantityOutOfTheBoundsIsRefusedNamingItsField() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ContainerDefaults.of(
                limitRange(new LimitRangeItemBuilder().withType("Pod").build(), new LimitRangeItemBuilder()
                        .withType("Container").withDefaultRequest(q("cpu", "1e999999")).build())));
        assertTrue(e.getMessage().startsWith("spec.limits[1].defaultRequest.cpu: "), e.getMessage());
    }

    // ---- the same as the API server, for templates of every shape ----------------------------------------------

    /** One container's own requests and limits (cpu, memory; each set or not). */
    record Amounts(Map<String, Quantity> requests, Map<String, Quantity> limits) {
    }

    /** A Container item: default, defaultRequest, max, min. */
    record Item(Map<String, Quantity> defaults, Map<String, Quantity> defaultRequests, Map<String, Quantity> max,
                Map<String, Quantity> min) {
    }

    @Provide
    Arbitrary<Map<String, Quantity>> amounts() {
        Arbitrary<String> cpu = Arbitraries.of("100m", "500m", "1", "2", "3");
        Arbitrary<String> memory = Arbitraries.of("64Mi", "1Gi", "2Gi");
        return Combinators.combine(cpu.injectNull(0.5), memory.injectNull(0.5)).as((c, m) -> {
            Map<String, Quantity> result = new LinkedHashMap<>();
            if (c != null) {
                result.put("cpu", new Quantity(c));
            }
            if (m != null) {
                result.put("memory", new Quantity(m));
            }
            return result;
        });
    }

    @Provide
    Arbitrary<Amounts> containers() {
        return Combinators.combine(amounts(), amounts()).as(Amounts::new);
    }

    @Provide
    Arbitrary<List<Amounts>> containerLists() {
        return containers().list().ofMinSize(1).ofMaxSize(3);
    }

    @Provide
    Arbitrary<Item> items() {
        return Combinators.combine(amounts(), amounts(), amounts(), amounts()).as(Item::new);
    }

    @Provide
    Arbitrary<List<List<Item>>> limitRanges() {
        return items().list().ofMinSize(1).ofMaxSize(2).list().ofMaxSize(2);
    }

    @Provide
    Arbitrary<String> runtimeClasses() {
        return Arbitraries.of("kata", "runc").injectNull(0.4);
    }

    @Property(tries = 60)
    void aTemplateIsPricedAsTheApiServerAdmitsItsPod(@ForAll("containerLists") List<Amounts> containers,
                                                    @ForAll("containers") Amounts init,
                                                    @ForAll boolean withInit,
                                                    @ForAll("limitRanges") List<List<Item>> limitRanges,
                                                    @ForAll("runtimeClasses") String runtimeClass) {
        String namespace = "ns-" + NAMESPACES.incrementAndGet();
        ContainerDefaults defaults = ContainerDefaults.NONE;
        for (int i = 0; i < limitRanges.size(); i++) {
            List<LimitRangeItem> items = new ArrayList<>();
            for (Item item : limitRanges.get(i)) {
                items.add(new LimitRangeItemBuilder().withType("Container").withDefault(item.defaults())
                        .withDefaultRequest(item.defaultRequests()).withMax(item.max()).withMin(item.min()).build());
            }
            LimitRange limitRange = new LimitRangeBuilder().withNewMetadata().withName("l" + i).endMetadata()
                    .withNewSpec().withLimits(items).endSpec().build();
            client.limitRanges().inNamespace(namespace).resource(limitRange).create();
            defaults = defaults.largest(ContainerDefaults.of(limitRange));
        }
        PodSpecBuilder template = new PodSpecBuilder().withRuntimeClassName(runtimeClass);
        for (int i = 0; i < containers.size(); i++) {
            template.addToContainers(container("c" + i, containers.get(i)));
        }
        if (withInit) {
            template.addToInitContainers(container("init", init));
        }
        PodSpec spec = template.build();
        Pod pod = client.pods().inNamespace(namespace).resource(new PodBuilder().withNewMetadata().withName("p")
                .endMetadata().withSpec(spec).build()).create();

        Resources priced = PodRequests.of(spec, "spec", new PodDefaults(defaults, OVERHEADS));
        Resources admitted = PodRequests.of(pod.getSpec(), "spec");
        if (limitRanges.size() <= 1) {
            assertEquals(admitted, priced, "one LimitRange: priced exactly as the pod is admitted");
        } else {
            for (Map.Entry<String, Long> amount : admitted.asMap().entrySet()) {
                assertTrue(priced.get(amount.getKey()) >= amount.getValue(), "several LimitRanges: never less, "
                        + amount.getKey() + " priced " + priced + ", admitted " + admitted);
            }
        }
    }

    private static Container container(String name, Amounts amounts) {
        return new ContainerBuilder().withName(name).withImage("busybox").withNewResources()
                .withRequests(amounts.requests()).withLimits(amounts.limits()).endResources().build();
    }
}
