package io.kubequeue.quota;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.LinkedHashMap;
import java.util.Map;

import io.fabric8.kubernetes.api.model.Quantity;
import io.kubequeue.scheduler.Resources;

/**
 * Turns Kubernetes quantities into the scheduler's exact units, with fabric8 {@link Quantity} doing the parsing
 * and arithmetic: {@code cpu} in millicores, everything else in base units (bytes, counts), rounded up as
 * Kubernetes does for fractional values.
 */
public final class Quantities {

    private Quantities() {
    }

    /**
     * @param resource the resource name (decides the unit)
     * @param quantity a Kubernetes quantity such as {@code 100m}, {@code 4Gi}, {@code 5G}
     * @return millicores for cpu, base units otherwise
     * @throws IllegalArgumentException if the quantity cannot be parsed, is negative, or does not fit a long
     */
    public static long toUnits(String resource, Quantity quantity) {
        BigDecimal amount;
        try {
            amount = quantity.getNumericalAmount();
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("invalid quantity '" + quantity + "' for " + resource, e);
        }
        if (amount.signum() < 0) {
            throw new IllegalArgumentException("negative quantity '" + quantity + "' for " + resource);
        }
        if (Resources.CPU.equals(resource)) {
            amount = amount.movePointRight(3);
        }
        try {
            return amount.setScale(0, RoundingMode.CEILING).longValueExact();
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("quantity '" + quantity + "' for " + resource + " is too large", e);
        }
    }

    /**
     * Converts a resource list ({@code requests}, {@code max}, {@code hard}); a null map gives no resources.
     *
     * @throws IllegalArgumentException naming the first bad entry
     */
    public static Resources toResources(Map<String, Quantity> quantities) {
        if (quantities == null) {
            return Resources.NONE;
        }
        Map<String, Long> units = new LinkedHashMap<>();
        quantities.forEach((name, q) -> {
            if (q == null) {
                throw new IllegalArgumentException("missing quantity for " + name);
            }
            units.put(name, toUnits(name, q));
        });
        return Resources.of(units);
    }
}
