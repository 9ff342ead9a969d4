package io.kubequeue.resources;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.Quantity;
import io.kubequeue.scheduler.model.Resources;

/** Requests (and usage) round up, limits round down: each conservative, the difference shown where they differ. */
class QuantitiesTest {

    private static final long GI = 1L << 30;

    @Test
    void aRequestIsRoundedUpToTheNextMillicoreOrByte() {
        assertEquals(2, Quantities.toUnits("cpu", new Quantity("0.0015")), "1.5m cpu");
        assertEquals(2, Quantities.toUnits("memory", new Quantity("1500m")), "1.5 bytes");
        assertEquals(2, Quantities.toUnits("memory", new Quantity("1.5")));
    }

    @Test
    void aLimitIsRoundedDownToTheMillicoreOrByteBelow() {
        assertEquals(1, Quantities.toLimitUnits("cpu", new Quantity("0.0015")), "1.5m cpu");
        assertEquals(1, Quantities.toLimitUnits("memory", new Quantity("1500m")), "1.5 bytes");
        assertEquals(1, Quantities.toLimitUnits("memory", new Quantity("1.5")));
        assertEquals(0, Quantities.toLimitUnits("cpu", new Quantity("0.5m")), "half a millicore allows none");
    }

    @Test
    void exactQuantitiesAreTheSameEitherWay() {
        assertEquals(1500, Quantities.toLimitUnits("cpu", new Quantity("1500m")));
        assertEquals(1500, Quantities.toUnits("cpu", new Quantity("1.5")));
        assertEquals(4 * GI, Quantities.toLimitUnits("memory", new Quantity("4Gi")));
        assertEquals(5_000_000_000L, Quantities.toLimitUnits("memory", new Quantity("5G")));
        assertEquals(8, Quantities.toLimitUnits("nvidia.com/gpu", new Quantity("8")));
    }

    @Test
    void aLimitThatIsNegativeUnparsableOrTooLargeIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> Quantities.toLimitUnits("cpu", new Quantity("-1")));
        assertThrows(IllegalArgumentException.class, () -> Quantities.toLimitUnits("cpu", new Quantity("lots")));
        assertThrows(IllegalArgumentException.class, () -> Quantities.toLimitUnits("memory", new Quantity("9Ei")));
    }

    @Test
    void aLimitListRoundsEachEntryDown() {
        Map<String, Quantity> max = new LinkedHashMap<>();
        max.put("cpu", new Quantity("0.0015"));
        max.put("memory", new Quantity("1500m"));
        assertEquals(Resources.of("cpu", 1L, "memory", 1L), Quantities.toLimitResources(max));
        assertEquals(Resources.of("cpu", 2L, "memory", 2L), Quantities.toResources(max));
        assertEquals(Resources.NONE, Quantities.toLimitResources(null));
    }

    /**
     * Issue 25, sequence 2: {@code 1e999999999} threw an ArithmeticException that no caller catches, and
     * {@code 1e30000000} cost tens of seconds per read. Both are refused at once, as IllegalArgumentException.
     */
    @Test
    void aQuantityBeyondTheBoundsIsRefusedAsIllegalArgumentWithoutComputingIt() {
        for (String huge : new String[] {"1e999999999", "1e30000000", "1E31", "1e-999999999", "1e2147483648",
                "0." + "0".repeat(70) + "1", "1".repeat(65), "1u999999999", "1Ki5"}) {
            for (String resource : new String[] {"cpu", "memory"}) {
                IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                        () -> Quantities.toUnits(resource, new Quantity(huge)), huge);
                assertTrue(refused.getMessage().contains(resource), refused.getMessage());
                assertThrows(IllegalArgumentException.class, () -> Quantities.toLimitUnits(resource, new Quantity(huge)));
            }
        }
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> Quantities.toUnits("cpu", new Quantity("1e999999999"))).getMessage().contains("exponent"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> Quantities.toUnits("cpu", new Quantity("1".repeat(65)))).getMessage().contains("characters"));
    }

    @Test
    void quantitiesWithinTheBoundsStillConvert() {
        assertEquals(1_000_000, Quantities.toUnits("cpu", new Quantity("1e3")));
        assertEquals(1, Quantities.toUnits("cpu", new Quantity("1e-30")), "rounded up to a millicore");
        assertEquals(0, Quantities.toLimitUnits("cpu", new Quantity("1e-30")));
        assertEquals(500, Quantities.toUnits("cpu", new Quantity("5e-1")));
        assertTrue(Quantities.toUnits("memory", new Quantity("1Ei")) > 1_000_000_000_000_000_000L, "binary exa, not an exponent");
        assertEquals(1_000_000_000_000_000_000L, Quantities.toUnits("memory", new Quantity("1E")), "decimal exa");
        assertThrows(IllegalArgumentException.class, () -> Quantities.toUnits("cpu", new Quantity("1e30")),
                "in range, but no long holds it");
    }
}
