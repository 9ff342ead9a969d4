package io.kubequeue.events;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

class RateLimitTest {

    @Test
    void aBurstPassesThenTheRateHolds() {
        AtomicLong nanos = new AtomicLong();
        RateLimit limit = new RateLimit(20, 200, nanos::get);
        int passed = 0;
        for (int i = 0; i < 1000; i++) {
            passed += limit.tryAcquire() ? 1 : 0;
        }
        assertEquals(200, passed, "the burst, then nothing at the same instant");
        nanos.addAndGet(1_000_000_000L);
        passed = 0;
        for (int i = 0; i < 1000; i++) {
            passed += limit.tryAcquire() ? 1 : 0;
        }
        assertEquals(20, passed, "one second later, the rate");
        nanos.addAndGet(3_600_000_000_000L);
        passed = 0;
        for (int i = 0; i < 1000; i++) {
            passed += limit.tryAcquire() ? 1 : 0;
        }
        assertEquals(200, passed, "an idle hour refills no more than the burst");
    }
}
