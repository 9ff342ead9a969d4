package io.kubequeue.quota;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.LinkedHashMap;
import java.util.Map;

import io.fabric8.kubernetes.api.model.Quantity;
import io.kubequeue.scheduler.Resources;

/**
 * Turns Kubernetes quantities into the scheduler's exact units, with fabric8 {@link Quantity} doing the parsing
 * and arithmetic: {@code cpu} in millicores, everything else in base units (bytes, counts).
 *
 * <p>Where a quantity is finer than the unit (1.5m cpu, 1.5 bytes) it is rounded the conservative way for its
 * role: a request or a used amount up ({@link #toUnits}), a limit down ({@link #toLimitUnits}). Kubernetes compares
 * a ResourceQuota's {@code spec.hard} with the usage exactly (apiserver quota {@code LessThanOrEqual}, Kubernetes
 * doc "Resource Quotas"), so a limit rounded up would admit more than Kubernetes would.
 */
public final class Quantities {

    private Quantities() {
    }

    /**
     * Converts a request or a used amount, rounded up.
     *
     * @param resource the resource name (decides the unit)
     * @param quantity a Kubernetes quantity such as {@code 100m}, {@code 4Gi}, {@code 5G}
     * @return millicores for cpu, base units (bytes, counts) otherwise, rounded up
     * @throws IllegalArgumentException if the quantity cannot be parsed, is negative, or does not fit a long
     */
    public static long toUnits(String resource, Quantity quantity) {
        return toUnits(resource, quantity, RoundingMode.CEILING);
    }

    /**
     * Converts a limit (a quota group's {@code max} or {@code min}, a ResourceQuota's {@code spec.hard}), rounded
     * down, so that it never allows more than the quantity says.
     *
     * @param resource the resource name (decides the unit)
     * @param quantity a Kubernetes quantity such as {@code 100m}, {@code 4Gi}, {@code 5G}
     * @return millicores for cpu, base units (bytes, counts) otherwise, rounded down
     * @throws IllegalArgumentException if the quantity cannot be parsed, is negative, or does not fit a long
     */
    public static long toLimitUnits(String resource, Quantity quantity) {
        return toUnits(resource, quantity, RoundingMode.FLOOR);
    }

    private static long toUnits(String resource, Quantity quantity, RoundingMode rounding) {
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
            return amount.setScale(0, rounding).longValueExact();
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("quantity '" + quantity + "' for " + resource + " is too large", e);
        }
    }

    /**
     * Converts a list of requests, each rounded up ({@link #toUnits}); a null map gives no resources.
     *
     * @return millicores for cpu, base units (bytes, counts) otherwise
     * @throws IllegalArgumentException naming the first bad entry
     */
    public static Resources toResources(Map<String, Quantity> quantities) {
        return toResources(quantities, RoundingMode.CEILING);
    }

    /**
     * Converts a list of limits ({@code max}, {@code min}), each rounded down ({@link #toLimitUnits}); a null map
     * gives no resources.
     *
     * @return millicores for cpu, base units (bytes, counts) otherwise
     * @throws IllegalArgumentException naming the first bad entry
     */
    public static Resources toLimitResources(Map<String, Quantity> quantities) {
        return toResources(quantities, RoundingMode.FLOOR);
    }

    private static Resources toResources(Map<String, Quantity> quantities, RoundingMode rounding) {
        if (quantities == null) {
            return Resources.NONE;
        }
        Map<String, Long> units = new LinkedHashMap<>();
        quantities.forEach((name, q) -> {
            if (q == null) {
                throw new IllegalArgumentException("missing quantity for " + name);
            }
            units.put(name, toUnits(name, q, rounding));
        });
        return Resources.of(units);
    }
}
