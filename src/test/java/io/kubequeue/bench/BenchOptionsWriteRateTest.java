package io.kubequeue.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code --write-rate}: parsed, described, refused with the valid values named. */
class BenchOptionsWriteRateTest {

    @Test
    void theDefaultIsTheRealServersMeasuredRate() {
        BenchOptions options = BenchOptions.parse();
        assertEquals(500, options.writeRate());
        assertTrue(options.describe().contains("--write-rate 500"), options.describe());
    }

    @Test
    void aRateIsWritesASecond() {
        BenchOptions options = BenchOptions.parse("--write-rate", "200");
        assertEquals(200, options.writeRate());
        assertTrue(options.describe().contains("--write-rate 200"), options.describe());
    }

    @ParameterizedTest
    @ValueSource(strings = {"off", "OFF", "0"})
    void offAndZeroMeanNoBudget(String value) {
        BenchOptions options = BenchOptions.parse("--write-rate", value);
        assertEquals(0, options.writeRate());
        assertTrue(options.describe().contains("--write-rate off"), options.describe());
    }

    @ParameterizedTest
    @ValueSource(strings = {"-1", "fast", "1.5", "500/s", ""})
    void aBadValueIsRefusedNamingTheValidOnes(String value) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> BenchOptions.parse("--write-rate", value));
        assertTrue(e.getMessage().contains("--write-rate takes a whole number of writes a second"), e.getMessage());
        assertTrue(e.getMessage().contains("0 or off"), e.getMessage());
    }

    @Test
    void theUsageNamesTheOption() {
        assertTrue(BenchOptions.USAGE.contains("--write-rate N|off"));
    }
}
