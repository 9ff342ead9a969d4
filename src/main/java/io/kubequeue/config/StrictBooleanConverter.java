package io.kubequeue.config;

import java.util.Locale;

import org.eclipse.microprofile.config.spi.Converter;

/**
 * Reads {@code StrictPriority}, {@code StrictConsistency} and {@code kube-queue.leader-election.enabled}. Only {@code true} and {@code false} (any case)
 * are accepted: the lenient default converter reads a typo such as {@code ture} as false, which would
 * silently switch a policy off.
 */
public class StrictBooleanConverter implements Converter<Boolean> {

    /** What the message starts with (the seed's env var), or empty: SmallRye names the property itself. */
    private final String prefix;

    public StrictBooleanConverter() {
        this("");
    }

    private StrictBooleanConverter(String prefix) {
        this.prefix = prefix;
    }

    /** {@code StrictPriority}, named as the seed names it in the message. */
    public static final class StrictPriority implements Converter<Boolean> {
        private final StrictBooleanConverter strict = new StrictBooleanConverter("StrictPriority: ");

        @Override
        public Boolean convert(String value) {
            return strict.convert(value);
        }
    }

    /** {@code StrictConsistency}, named as the seed names it in the message. */
    public static final class StrictConsistency implements Converter<Boolean> {
        private final StrictBooleanConverter strict = new StrictBooleanConverter("StrictConsistency: ");

        @Override
        public Boolean convert(String value) {
            return strict.convert(value);
        }
    }

    /** @throws IllegalArgumentException naming the valid values for anything but true/false */
    @Override
    public Boolean convert(String value) {
        String v = value == null ? "" : value.trim().toLowerCase(Locale.ROOT);
        if (v.equals("true")) {
            return Boolean.TRUE;
        }
        if (v.equals("false")) {
            return Boolean.FALSE;
        }
        throw new IllegalArgumentException(prefix + "invalid value '" + value + "'; valid values: true, false");
    }
}
