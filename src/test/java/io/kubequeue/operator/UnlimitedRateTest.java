package io.kubequeue.operator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.time.Duration;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import io.javaoperatorsdk.operator.processing.event.rate.LinearRateLimiter;

/** A controller keeps the rate limit it is configured with; only one that limits nothing gets the shared state. */
class UnlimitedRateTest {

    @Test
    void aLimiterThatLimitsNothingIsReplacedAndOneThatLimitsIsKept() {
        assertSame(UnlimitedRate.LIMITER, UnlimitedRate.orShared(LinearRateLimiter.deactivatedRateLimiter()));
        assertSame(UnlimitedRate.LIMITER, UnlimitedRate.orShared(null));
        LinearRateLimiter limiting = new LinearRateLimiter(Duration.ofSeconds(1), 5);
        assertSame(limiting, UnlimitedRate.orShared(limiting));
    }

    @Test
    void everyResourceGetsTheOneStateAndIsNeverLimited() {
        assertSame(UnlimitedRate.STATE, UnlimitedRate.LIMITER.initState());
        for (int i = 0; i < 1000; i++) { // a deactivated LinearRateLimiter never limits either, however often asked
            assertEquals(Optional.empty(), UnlimitedRate.LIMITER.isLimited(UnlimitedRate.LIMITER.initState()));
        }
    }
}
