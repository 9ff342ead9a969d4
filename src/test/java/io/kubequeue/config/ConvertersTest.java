package io.kubequeue.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

    @Test
    void timeoutsReadQuarkusAndKubernetesStyleDurationsZeroIsOff() {
        assertEquals(java.time.Duration.ofMinutes(15), TimeoutConverter.parse("15m"));
        assertEquals(java.time.Duration.ofMinutes(90), TimeoutConverter.parse("1h30m"));
        assertEquals(java.time.Duration.ofSeconds(90), TimeoutConverter.parse(" 90 "));
        assertEquals(java.time.Duration.ofMinutes(15), TimeoutConverter.parse("PT15M"));
        assertEquals(java.time.Duration.ZERO, TimeoutConverter.parse("0"));
        for (String bad : new String[] {"soon", "", "1.5h", "15 m"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TimeoutConverter.parse(bad));
            assertEquals("invalid duration '" + bad + "'; valid forms: " + TimeoutConverter.VALID_FORMS, e.getMessage());
        }
        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
                () -> new TimeoutConverter().convert("-5m"));
        assertTrue(negative.getMessage().startsWith("invalid duration '-5m': must not be negative; valid forms: 0 (off)"),
                negative.getMessage());
    }
}
