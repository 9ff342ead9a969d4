package io.kubequeue.resources;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.LinkedHashMap;
import java.util.Map;

import io.fabric8.kubernetes.api.model.Quantity;
import io.kubequeue.scheduler.model.Resources;

/**
 * Turns Kubernetes quantities into the scheduler's exact units, with fabric8 {@link Quantity} doing the parsing
 * and arithmetic: {@code cpu} in millicores, everything else in base units (bytes, counts).
 *
 * <p>Where a quantity is finer than the unit (1.5m cpu, 1.5 bytes) it is rounded the conservative way for its
 * role: a request or a used amount up ({@link #toUnits}), a limit down ({@link #toLimitUnits}). Kubernetes compares
 * a ResourceQuota's {@code spec.hard} with the usage exactly (apiserver quota {@code LessThanOrEqual}, Kubernetes
 * doc "Resource Quotas"), so a limit rounded up would admit more than Kubernetes would.
 *
 * <p><b>Bounds</b> (docs/security.md, "Hostile input: the bounds"): a quantity reaches fabric8's arithmetic only
 * if its text has at most {@value #MAX_LENGTH} characters, its suffix is one of Kubernetes' (fabric8 reads any
 * suffix with a digit as a power of ten), and the exponent of an {@code e}/{@code E} suffix lies within
 * ±{@value #MAX_EXPONENT}; anything else is refused at once, without computing it. No quantity inside those
 * bounds costs more than a few hundred digits of BigDecimal work, and every one that fits the scheduler's
 * {@code long} (millicores, bytes) is inside them: a long has 19 digits, and cpu moves the point by 3. The API
 * server itself caps a quantity at 2^63-1 and rounds below 1n; a custom resource's quantity (a Kubeflow template,
 * the tree's min/max) is only matched against a pattern, so {@code 1e999999999} reaches kube-queue as written, and
 * fabric8 would spend minutes on it or throw an ArithmeticException.
 */
public final class Quantities {

    /** The longest quantity text read, in characters. */
    public static final int MAX_LENGTH = 64;
    /** The largest decimal exponent ({@code 5e3}, {@code 1E-6}) read, either way. */
    public static final int MAX_EXPONENT = 30;
    /** Kubernetes' quantity suffixes (k8s.io/apimachinery resource.Quantity): SI, binary SI, or a decimal exponent. */
    private static final java.util.regex.Pattern SUFFIX =
            java.util.regex.Pattern.compile("|[numkMGTPE]|[KMGTPE]i|[eE][+-]?[0-9]{1,12}");

    private Quantities() {
    }

    /**
     * The quantity's amount, checked against the bounds above before fabric8 computes it: for comparisons of two
     * quantities (a tree's min against its max, a quota's status against its spec).
     *
     * @return the amount in the quantity's base unit (cores, bytes, counts)
     * @throws IllegalArgumentException if the quantity is out of bounds or cannot be parsed
     */
    public static BigDecimal amount(Quantity quantity) {
        String text = bounded(quantity);
        try {
            return Quantity.getAmountInBytes(new Quantity(text));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("invalid quantity '" + text + "'", e);
        }
    }

    /**
     * The quantity's text, if it is within the bounds ({@value #MAX_LENGTH} characters, exponent within
     * ±{@value #MAX_EXPONENT}); what fabric8 parses it into is not computed yet.
     *
     * @throws IllegalArgumentException naming the bound it breaks
     */
    static String bounded(Quantity quantity) {
        if (quantity == null || quantity.getAmount() == null) {
            throw new IllegalArgumentException("missing quantity");
        }
        String amount = quantity.getAmount();
        String format = quantity.getFormat() == null ? "" : quantity.getFormat();
        if (amount.length() + format.length() > MAX_LENGTH) {
            throw new IllegalArgumentException("quantity of " + (amount.length() + format.length())
                    + " characters: at most " + MAX_LENGTH + " are read");
        }
        String text = amount + format;
        Quantity parsed;
        try {
            parsed = Quantity.parse(text); // splits number and suffix; computes nothing
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("invalid quantity '" + text + "'", e);
        }
        String suffix = parsed.getFormat() == null ? "" : parsed.getFormat();
        if (!SUFFIX.matcher(suffix).matches()) {
            // fabric8 reads any suffix with a digit in it as a power of ten ("1u999999999" is 10^999999999)
            throw new IllegalArgumentException("quantity '" + text + "': suffix '" + suffix + "' is none of"
                    + " Kubernetes' (n, u, m, k, M, G, T, P, E, Ki ... Ei, or e/E with an exponent)");
        }
        if (suffix.length() > 1 && (suffix.charAt(0) == 'e' || suffix.charAt(0) == 'E') && !suffix.equals("Ei")) {
            int exponent;
            try {
                exponent = Integer.parseInt(suffix.substring(1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("quantity '" + text + "': exponent " + suffix.substring(1)
                        + " is out of range (at most ±" + MAX_EXPONENT + ")");
            }
            if (Math.abs((long) exponent) > MAX_EXPONENT) {
                throw new IllegalArgumentException("quantity '" + text + "': exponent " + exponent
                        + " is out of range (at most ±" + MAX_EXPONENT + ")");
            }
        }
        return text;
    }

    /**
     * Converts a request or a used amount, rounded up.
     *
     * @param resource the resource name (decides the unit)
     * @param quantity a Kubernetes quantity such as {@code 100m}, {@code 4Gi}, {@code 5G}
     * @return millicores for cpu, base units (bytes, counts) otherwise, rounded up
     * @throws IllegalArgumentException if the quantity cannot be parsed, is negative, is out of the bounds above,
     *                                  or does not fit a long
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
     * @throws IllegalArgumentException if the quantity cannot be parsed, is negative, is out of the bounds above,
     *                                  or does not fit a long
     */
    public static long toLimitUnits(String resource, Quantity quantity) {
        return toUnits(resource, quantity, RoundingMode.FLOOR);
    }

    private static long toUnits(String resource, Quantity quantity, RoundingMode rounding) {
        BigDecimal amount;
        try {
            amount = amount(quantity);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(e.getMessage() + " for " + resource, e);
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
