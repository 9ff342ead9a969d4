package io.kubequeue.scheduler.model;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * An immutable amount of resources, keyed by Kubernetes resource name.
 *
 * <p>Units are exact integers, never doubles: {@code cpu} in millicores, every other resource in its base
 * unit (memory and ephemeral-storage in bytes, extended resources such as {@code nvidia.com/gpu}
 * and the pseudo-resource {@link #MAX_JOBS} as counts); requests and usage rounded up, limits rounded down. A resource named with amount 0 is kept: as a limit,
 * 0 means "none allowed", while an absent name means "not limited". The conversion from Kubernetes quantities happens
 * outside this package (see {@code io.kubequeue.resources.Quantities}).
 */
public final class Resources {

    /** Pseudo-resource that caps how many jobs are admitted at once in a quota group (docs/behaviour.md §3). */
    public static final String MAX_JOBS = "kube-queue/max-jobs";

    /** Resource name whose unit is the millicore. */
    public static final String CPU = "cpu";

    /** Resource name whose unit is the byte. */
    public static final String MEMORY = "memory";

    public static final Resources NONE = new Resources(new TreeMap<>());

    private final TreeMap<String, Long> amounts;

    private Resources(TreeMap<String, Long> amounts) {
        this.amounts = amounts;
    }

    /**
     * @param amounts resource name to amount (millicores for cpu, base units otherwise)
     * @throws IllegalArgumentException if an amount is negative
     */
    public static Resources of(Map<String, Long> amounts) {
        TreeMap<String, Long> copy = new TreeMap<>();
        amounts.forEach((name, amount) -> {
            if (amount < 0) {
                throw new IllegalArgumentException("negative amount for " + name + ": " + amount);
            }
            copy.put(name, amount);
        });
        return new Resources(copy);
    }

    /**
     * Shorthand for tests and literals: {@code Resources.of("cpu", 3000, "memory", 1L << 30)}.
     *
     * @throws IllegalArgumentException for an odd number of arguments or a negative amount
     * @throws ClassCastException       if a name is not a String or an amount not a Number
     */
    public static Resources of(Object... nameAmountPairs) {
        if (nameAmountPairs.length % 2 != 0) {
            throw new IllegalArgumentException("expected name/amount pairs");
        }
        TreeMap<String, Long> map = new TreeMap<>();
        for (int i = 0; i < nameAmountPairs.length; i += 2) {
            map.put((String) nameAmountPairs[i], ((Number) nameAmountPairs[i + 1]).longValue());
        }
        return of(map);
    }

    /** The amount of one resource; 0 when absent. */
    public long get(String name) {
        return amounts.getOrDefault(name, 0L);
    }

    /** Whether this amount names the resource at all (for limits, absent means unlimited). */
    public boolean has(String name) {
        return amounts.containsKey(name);
    }

    /** Resource names and amounts, sorted by name. */
    public Map<String, Long> asMap() {
        return Collections.unmodifiableMap(amounts);
    }

    /**
     * The amounts as Kubernetes quantities by resource name, sorted ({@code "1500m"}, {@code "3Gi"}; see
     * {@link #format}), as the read API and the quota tree's status show them.
     */
    public Map<String, String> asQuantities() {
        TreeMap<String, String> out = new TreeMap<>();
        amounts.forEach((name, amount) -> out.put(name, format(name, amount)));
        return out;
    }

    /** Whether every amount is zero. */
    public boolean isEmpty() {
        return amounts.values().stream().allMatch(a -> a == 0);
    }

    /**
     * Element-wise sum, saturating at {@link Long#MAX_VALUE} (about 9.2 EB of memory): usage and requests that
     * large are not real, and saturation keeps them above every limit instead of wrapping around below it.
     */
    public Resources plus(Resources other) {
        TreeMap<String, Long> sum = new TreeMap<>(amounts);
        other.amounts.forEach((name, amount) -> sum.merge(name, amount, Resources::saturatingAdd));
        return new Resources(sum);
    }

    /**
     * One amount plus another, as {@link #plus} adds them: saturating at {@link Long#MAX_VALUE} instead of wrapping (for
     * a caller that sums amounts in a map of its own, as pricing a pod does).
     */
    public static long saturatingAdd(long a, long b) {
        long sum = a + b;
        return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
    }

    /** Element-wise difference, floored at zero so a release can never make usage negative. */
    public Resources minus(Resources other) {
        TreeMap<String, Long> diff = new TreeMap<>(amounts);
        other.amounts.forEach((name, amount) -> {
            diff.put(name, Math.max(0L, diff.getOrDefault(name, 0L) - amount));
        });
        return new Resources(diff);
    }

    /**
     * This amount times a non-negative factor (replicas, parallelism), saturating at {@link Long#MAX_VALUE} as
     * {@link #plus} does.
     *
     * @throws IllegalArgumentException if the factor is negative
     */
    public Resources times(long factor) {
        if (factor < 0) {
            throw new IllegalArgumentException("negative factor " + factor);
        }
        TreeMap<String, Long> product = new TreeMap<>();
        amounts.forEach((name, amount) -> product.put(name,
                factor != 0 && amount > Long.MAX_VALUE / factor ? Long.MAX_VALUE : amount * factor));
        return new Resources(product);
    }

    /** Element-wise maximum (the init-container rule of Kubernetes pod requests). */
    public Resources max(Resources other) {
        TreeMap<String, Long> result = new TreeMap<>(amounts);
        other.amounts.forEach((name, amount) -> result.merge(name, amount, Math::max));
        return new Resources(result);
    }

    /**
     * This amount with one resource set to a value: a copy of the whole map, so a loop over many names builds its
     * amounts in a map of its own and calls {@link #of(Map)} once.
     *
     * @throws IllegalArgumentException if negative
     */
    public Resources with(String name, long amount) {
        if (amount < 0) {
            throw new IllegalArgumentException("negative amount for " + name + ": " + amount);
        }
        TreeMap<String, Long> copy = new TreeMap<>(amounts);
        copy.put(name, amount);
        return new Resources(copy);
    }

    /** Human form of one amount: cpu in cores ({@code 3}, {@code 1500m}), memory with binary suffixes. */
    public static String format(String name, long amount) {
        if (name.startsWith("limits.")) {
            name = name.substring("limits.".length()); // a limit has the unit of its resource
        }
        if (CPU.equals(name)) {
            return amount % 1000 == 0 ? Long.toString(amount / 1000) : amount + "m";
        }
        if (MEMORY.equals(name) || name.endsWith("storage")) {
            String[] suffixes = {"Ei", "Pi", "Ti", "Gi", "Mi", "Ki"};
            for (int i = 0; i < suffixes.length; i++) {
                long unit = 1L << (10 * (6 - i));
                if (amount != 0 && amount % unit == 0) {
                    return amount / unit + suffixes[i];
                }
            }
        }
        return Long.toString(amount);
    }

    @Override
    public boolean equals(Object o) {
        // the hash is cached: two different ones settle it without walking the maps
        return this == o || o instanceof Resources r && hashCode() == r.hashCode() && amounts.equals(r.amounts);
    }

    @Override
    public int hashCode() {
        int h = hash;
        if (h == 0) {
            h = amounts.hashCode();
            hash = h; // immutable: computed once (a fit memo hashes every job's request per cycle)
        }
        return h;
    }

    private int hash;

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("{");
        amounts.forEach((name, amount) -> {
            if (sb.length() > 1) {
                sb.append(", ");
            }
            sb.append(name).append(": ").append(format(name, amount));
        });
        return sb.append('}').toString();
    }
}
