package io.kubequeue.quota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.Quantity;
import io.kubequeue.scheduler.Resources;

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
}
