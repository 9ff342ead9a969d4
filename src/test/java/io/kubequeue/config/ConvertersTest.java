package io.kubequeue.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class ConvertersTest {

    @Test
    void queueGroupPluginAcceptsTheSeedsTwoValuesInAnyCase() {
        QueueGroupPluginConverter converter = new QueueGroupPluginConverter();
        assertEquals(QueueGroupPlugin.ELASTICQUOTA, converter.convert("elasticquota"));
        assertEquals(QueueGroupPlugin.RESOURCEQUOTA, converter.convert(" ResourceQuota "));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> converter.convert("elastic"));
        assertEquals("QueueGroupPlugin: invalid value 'elastic'; valid values: elasticquota, resourcequota",
                e.getMessage());
    }

    @Test
    void strictSwitchesAcceptOnlyTrueOrFalse() {
        StrictBooleanConverter converter = new StrictBooleanConverter();
        assertEquals(Boolean.TRUE, converter.convert("TRUE"));
        assertEquals(Boolean.FALSE, converter.convert("false"));
        // the lenient default would read these as false and silently switch a policy off
        assertThrows(IllegalArgumentException.class, () -> converter.convert("ture"));
        assertThrows(IllegalArgumentException.class, () -> converter.convert("yes"));
    }
}
