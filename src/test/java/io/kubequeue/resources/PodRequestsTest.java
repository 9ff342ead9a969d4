package io.kubequeue.resources;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.kubequeue.input.InvalidJobException;
import io.kubequeue.scheduler.model.Resources;

/**
 * The pod-request rule's bound on resource names ({@link PodRequests#MAX_RESOURCES}), and its arithmetic against the
 * rule as it was written before (one immutable {@link Resources} per step, {@link Reference}): the same amounts for
 * every pod within the bound.
 */
class PodRequestsTest {

    private static Map<String, Quantity> names(String prefix, int count) {
        Map<String, Quantity> amounts = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            amounts.put(prefix + i, new Quantity("1"));
        }
        return amounts;
    }

    private static Container container(Map<String, Quantity> requests, Map<String, Quantity> limits) {
        Container container = new Container();
        container.setName("c");
        ResourceRequirements resources = new ResourceRequirements();
        resources.setRequests(requests);
        resources.setLimits(limits);
        container.setResources(resources);
        return container;
    }

    private static PodSpec pod(Container... containers) {
        PodSpec spec = new PodSpec();
        spec.setContainers(List.of(containers));
        return spec;
    }

    /**
     * A container's requests with 100,000 distinct names (a CRD schema cannot limit map keys): refused at the
     * requests field, with a message that names the bound, not priced (the pricing was quadratic in the names).
     */
    @Test
    void aContainerRequestingAHundredThousandResourcesIsRefusedAtItsRequests() {
        PodSpec spec = pod(container(names("example.com/r", 100_000), null));
        InvalidJobException e = assertThrows(InvalidJobException.class,
                () -> PodRequests.of(spec, "spec.template.spec"));
        assertTrue(e.getMessage().startsWith("spec.template.spec.containers[0].resources.requests: "), e.getMessage());
        assertTrue(e.getMessage().contains("at most " + PodRequests.MAX_RESOURCES), e.getMessage());
        assertTrue(e.getMessage().length() < 1_000, e.getMessage());
    }

    /** The bound is on the pod's distinct names: the same names in every container count once. */
    @Test
    void theBoundCountsDistinctNamesOverThePod() {
        int max = PodRequests.MAX_RESOURCES;
        Resources atTheBound = assertDoesNotThrow(() -> PodRequests.of(pod(container(names("r", max), null)), "spec"));
        assertEquals(max, atTheBound.asMap().size());

        PodSpec sameNames = pod(container(names("r", max), null), container(null, names("r", max)));
        assertEquals(2L, PodRequests.of(sameNames, "spec").get("r0"));

        InvalidJobException overLimits = assertThrows(InvalidJobException.class,
                () -> PodRequests.of(pod(container(names("r", max), names("l", 1))), "spec"));
        assertTrue(overLimits.getMessage().startsWith("spec.containers[0].resources.limits: "), overLimits.getMessage());

        PodSpec overInSecond = pod(container(names("r", max / 2), null), container(names("s", max / 2 + 1), null));
        InvalidJobException e = assertThrows(InvalidJobException.class, () -> PodRequests.of(overInSecond, "spec"));
        assertTrue(e.getMessage().startsWith("spec.containers[1].resources.requests: "), e.getMessage());

        PodSpec overhead = pod(container(names("r", max), null));
        overhead.setOverhead(Map.of("cpu", new Quantity("1")));
        InvalidJobException o = assertThrows(InvalidJobException.class, () -> PodRequests.of(overhead, "spec"));
        assertTrue(o.getMessage().startsWith("spec.overhead: "), o.getMessage());
    }

    /** A bad quantity is still named where it is written, whether the pod is a template's or one container's. */
    @Test
    void aBadQuantityIsNamedAtItsField() {
        PodSpec spec = pod(container(Map.of("cpu", new Quantity("1")), null),
                container(null, Map.of("memory", new Quantity("1e999999999"))));
        InvalidJobException e = assertThrows(InvalidJobException.class, () -> PodRequests.of(spec, "spec"));
        assertTrue(e.getMessage().startsWith("spec.containers[1].resources.limits.memory: "), e.getMessage());

        ResourceRequirements one = new ResourceRequirements();
        one.setLimits(Map.of("cpu", new Quantity("-1")));
        InvalidJobException r = assertThrows(InvalidJobException.class, () -> PodRequests.of(one, "spec.perNode"));
        assertTrue(r.getMessage().startsWith("spec.perNode.limits.cpu: "), r.getMessage());
    }

    /**
     * Random pods (containers, init containers, sidecars, pod-level resources with and without requests, overhead,
     * zero amounts, amounts near {@link Long#MAX_VALUE}) priced as the rule was written before: the same amounts.
     */
    @Test
    void pricesEveryPodAsTheRuleDidBefore() {
        Random random = new Random(20_240_611);
        List<String> resources = List.of("cpu", "memory", "ephemeral-storage", "hugepages-2Mi", "hugepages-1Gi",
                "nvidia.com/gpu", "example.com/fpga");
        for (int n = 0; n < 5_000; n++) {
            PodSpec spec = new PodSpec();
            spec.setContainers(containers(random, resources, false));
            spec.setInitContainers(containers(random, resources, true));
            if (random.nextInt(3) == 0) {
                spec.setResources(new ResourceRequirements(null, amounts(random, resources),
                        amounts(random, resources)));
            }
            if (random.nextInt(3) == 0) {
                spec.setOverhead(amounts(random, resources));
            }
            Resources expected;
            try {
                expected = Reference.of(spec, "spec");
            } catch (InvalidJobException e) {
                InvalidJobException now = assertThrows(InvalidJobException.class, () -> PodRequests.of(spec, "spec"));
                assertEquals(e.getMessage(), now.getMessage());
                continue;
            }
            assertEquals(expected, PodRequests.of(spec, "spec"), spec.toString());
            for (Container c : spec.getContainers() == null ? List.<Container>of() : spec.getContainers()) {
                if (c.getResources() != null) {
                    PodSpec alone = pod(c);
                    assertEquals(Reference.of(alone, "spec"), PodRequests.of(c.getResources(), "spec"), c.toString());
                }
            }
        }
    }

    private static List<Container> containers(Random random, List<String> resources, boolean init) {
        List<Container> list = new ArrayList<>();
        int count = random.nextInt(4);
        for (int i = 0; i < count; i++) {
            Container c = random.nextInt(6) == 0 ? new Container()
                    : container(amounts(random, resources), amounts(random, resources));
            c.setName("c" + i);
            if (init && random.nextBoolean()) {
                c.setRestartPolicy("Always");
            }
            list.add(c);
        }
        return random.nextInt(8) == 0 ? null : list;
    }

    private static Map<String, Quantity> amounts(Random random, List<String> resources) {
        if (random.nextInt(5) == 0) {
            return null;
        }
        Map<String, Quantity> amounts = new LinkedHashMap<>();
        for (String resource : resources) {
            if (random.nextInt(3) == 0) {
                String amount = switch (random.nextInt(6)) {
                    case 0 -> "0";
                    // near Long.MAX_VALUE (millicores, bytes): sums saturate
                    case 1 -> Resources.CPU.equals(resource) ? "9000000000000000" : "7Ei";
                    case 2 -> random.nextInt(4000) + "m";
                    case 3 -> random.nextInt(64) + "Gi";
                    default -> Integer.toString(random.nextInt(10));
                };
                amounts.put(resource, new Quantity(amount));
            }
        }
        return amounts;
    }

    /** The rule as it was written before the bound: one immutable {@link Resources} per step, quadratic. */
    private static final class Reference {

        private static final List<String> LIMITED = List.of(Resources.CPU, Resources.MEMORY, "ephemeral-storage");

        static Resources of(PodSpec spec, String field) {
            Resources regular = Resources.NONE;
            Resources regularLimits = Resources.NONE;
            List<Container> containers = spec.getContainers() == null ? List.of() : spec.getContainers();
            for (int i = 0; i < containers.size(); i++) {
                Resources[] c = container(containers.get(i), field + ".containers[" + i + "]");
                regular = regular.plus(c[0]);
                regularLimits = regularLimits.plus(c[1]);
            }
            Resources init = Resources.NONE;
            Resources initLimits = Resources.NONE;
            Resources sidecars = Resources.NONE;
            Resources sidecarLimits = Resources.NONE;
            List<Container> initContainers = spec.getInitContainers() == null ? List.of() : spec.getInitContainers();
            for (int i = 0; i < initContainers.size(); i++) {
                Container container = initContainers.get(i);
                Resources[] c = container(container, field + ".initContainers[" + i + "]");
                if ("Always".equals(container.getRestartPolicy())) {
                    sidecars = sidecars.plus(c[0]);
                    sidecarLimits = sidecarLimits.plus(c[1]);
                    init = init.max(sidecars);
                    initLimits = initLimits.max(sidecarLimits);
                } else {
                    init = init.max(c[0].plus(sidecars));
                    initLimits = initLimits.max(c[1].plus(sidecarLimits));
                }
            }
            Resources requests = regular.plus(sidecars).max(init);
            Resources limits = regularLimits.plus(sidecarLimits).max(initLimits);
            ResourceRequirements podLevel = spec.getResources();
            if (podLevel != null) {
                Resources podRequests = podLevel(podLevel.getRequests(), field + ".resources.requests");
                Resources podLimits = podLevel(podLevel.getLimits(), field + ".resources.limits");
                for (Map.Entry<String, Long> limit : podLimits.asMap().entrySet()) {
                    String resource = limit.getKey();
                    if (!podRequests.has(resource) && (!requests.has(resource) || resource.startsWith("hugepages-"))) {
                        podRequests = podRequests.with(resource, limit.getValue());
                    }
                }
                requests = replace(requests, podRequests);
                limits = replace(limits, podLimits);
            }
            Resources overhead = toResources(spec.getOverhead(), field + ".overhead");
            requests = requests.plus(overhead);
            for (Map.Entry<String, Long> extra : overhead.asMap().entrySet()) {
                if (limits.has(extra.getKey())) {
                    // the one change: a limit plus overhead past Long.MAX_VALUE wrapped below zero, and with() threw
                    // an IllegalArgumentException; it saturates now, as every other sum does
                    long sum = limits.get(extra.getKey()) + extra.getValue();
                    limits = limits.with(extra.getKey(), sum < 0 ? Long.MAX_VALUE : sum);
                }
            }
            for (String resource : LIMITED) {
                if (limits.has(resource)) {
                    requests = requests.with("limits." + resource, limits.get(resource));
                }
            }
            return requests;
        }

        private static Resources podLevel(Map<String, Quantity> quantities, String field) {
            Resources supported = Resources.NONE;
            for (Map.Entry<String, Long> amount : toResources(quantities, field).asMap().entrySet()) {
                String resource = amount.getKey();
                if (Resources.CPU.equals(resource) || Resources.MEMORY.equals(resource)
                        || resource.startsWith("hugepages-")) {
                    supported = supported.with(resource, amount.getValue());
                }
            }
            return supported;
        }

        private static Resources replace(Resources base, Resources replacements) {
            Resources result = base;
            for (Map.Entry<String, Long> amount : replacements.asMap().entrySet()) {
                result = result.with(amount.getKey(), amount.getValue());
            }
            return result;
        }

        private static Resources[] container(Container container, String field) {
            ResourceRequirements resources = container.getResources();
            if (resources == null) {
                return new Resources[] {Resources.NONE, Resources.NONE};
            }
            Resources requests = toResources(resources.getRequests(), field + ".resources.requests");
            Resources limits = toResources(resources.getLimits(), field + ".resources.limits");
            for (Map.Entry<String, Long> limit : limits.asMap().entrySet()) {
                if (!requests.has(limit.getKey())) {
                    requests = requests.with(limit.getKey(), limit.getValue());
                }
            }
            return new Resources[] {requests, limits};
        }

        private static Resources toResources(Map<String, Quantity> quantities, String field) {
            Resources result = Resources.NONE;
            if (quantities != null) {
                for (Map.Entry<String, Quantity> q : quantities.entrySet()) {
                    try {
                        result = result.with(q.getKey(), Quantities.toUnits(q.getKey(), q.getValue()));
                    } catch (IllegalArgumentException e) {
                        throw new InvalidJobException(field + "." + q.getKey(), q.getValue(), e.getMessage());
                    }
                }
            }
            return result;
        }
    }
}
