package io.kubequeue.operator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.kubequeue.config.KubeQueueConfig;

/** The watchdog that ends a shutdown stuck past kube-queue.shutdown-deadline (ShutdownDeadlineIT: the process). */
class ShutdownDeadlineTest {

    @Test
    void haltsOnceTheDeadlineHasPassedWithoutHoldingTheJvm() throws InterruptedException {
        CountDownLatch halted = new CountDownLatch(1);
        Thread watchdog = ShutdownDeadline.watch(Duration.ofMillis(200), halted::countDown);
        assertTrue(watchdog.isDaemon(), "a normal shutdown must not wait for it");
        assertFalse(halted.await(50, TimeUnit.MILLISECONDS), "not before the deadline");
        assertTrue(halted.await(5, TimeUnit.SECONDS));
    }

    @Test
    void aDeadlineThatIsNotAboveZeroStopsStartUpNamingTheSetting() {
        for (Duration bad : new Duration[] {Duration.ZERO, Duration.ofSeconds(-1)}) {
            KubeQueueConfig config = (KubeQueueConfig) Proxy.newProxyInstance(getClass().getClassLoader(),
                    new Class<?>[] {KubeQueueConfig.class}, (proxy, method, args) -> {
                        if (method.getName().equals("shutdownDeadline")) {
                            return bad;
                        }
                        throw new UnsupportedOperationException(method.getName());
                    });
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                    () -> new ShutdownDeadline(config));
            assertEquals("kube-queue.shutdown-deadline: must be from 1s to 1h, got " + bad, refused.getMessage());
        }
    }
}
