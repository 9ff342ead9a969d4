package io.kubequeue.quota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.kubequeue.config.QueueGroupPlugin;
import io.kubequeue.quota.elastic.ElasticQuotaPlugin;
import io.kubequeue.quota.resourcequota.ResourceQuotaPlugin;
import io.kubequeue.testing.WithStrictApiServer;
import io.quarkus.arc.All;
import io.quarkus.test.junit.QuarkusTest;

/**
 * A quota plugin is its folder plus a value of {@code QueueGroupPlugin}: each value has exactly one plugin bean,
 * which start-up selects; a value with no bean, or two, fails here (and would stop start-up, naming the value).
 */
@QuarkusTest
@WithStrictApiServer
class QuotaPluginsTest {

    @Inject
    @All
    List<QuotaPlugin> plugins;

    @Test
    void everyQueueGroupPluginValueHasExactlyOneBean() {
        for (QueueGroupPlugin value : QueueGroupPlugin.values()) {
            assertEquals(value, QuotaPlugin.select(plugins, value).plugin());
        }
        assertEquals(Set.of(QueueGroupPlugin.values()),
                plugins.stream().map(QuotaPlugin::plugin).collect(Collectors.toSet()));
        assertEquals(QueueGroupPlugin.values().length, plugins.size(), "one bean per value");
    }

    @Test
    void aValueWithNoBeanOrTwoIsRefusedNamingIt() {
        QuotaPlugin elastic = new ElasticQuotaPlugin(null, null, null, null, null);
        IllegalStateException none = assertThrows(IllegalStateException.class,
                () -> QuotaPlugin.select(List.of(elastic), QueueGroupPlugin.RESOURCEQUOTA));
        assertTrue(none.getMessage().contains("resourcequota: 0 plugin beans"), none.getMessage());
        IllegalStateException two = assertThrows(IllegalStateException.class,
                () -> QuotaPlugin.select(List.of(elastic, elastic), QueueGroupPlugin.ELASTICQUOTA));
        assertTrue(two.getMessage().contains("elasticquota: 2 plugin beans"), two.getMessage());
        assertEquals(ResourceQuotaPlugin.class, QuotaPlugin.select(List.of(elastic,
                new ResourceQuotaPlugin(null, null, null, null, null)), QueueGroupPlugin.RESOURCEQUOTA).getClass());
    }
}
