package io.kubequeue.config;

import java.util.Locale;

import org.eclipse.microprofile.config.spi.Converter;

/**
 * Reads {@code QueueGroupPlugin}. Any value but the two of the seed stops start-up with a message that
 * names them.
 */
public class QueueGroupPluginConverter implements Converter<QueueGroupPlugin> {

    /** @throws IllegalArgumentException naming the valid values when {@code value} is not one of them */
    @Override
    public QueueGroupPlugin convert(String value) {
        String trimmed = value == null ? "" : value.trim();
        for (QueueGroupPlugin plugin : QueueGroupPlugin.values()) {
            if (plugin.value().equals(trimmed.toLowerCase(Locale.ROOT))) {
                return plugin;
            }
        }
        throw new IllegalArgumentException("QueueGroupPlugin: invalid value '" + value + "'; valid values: "
                + QueueGroupPlugin.validValues());
    }
}
