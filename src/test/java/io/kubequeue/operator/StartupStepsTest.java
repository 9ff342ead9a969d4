package io.kubequeue.operator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.kubequeue.config.KubeQueueConfig;
import io.kubequeue.config.QueueGroupPlugin;

/**
 * Start-up runs as an ordered list of steps (issue 15, item 4): started in order, stopped in the reverse order, and
 * a step that fails to start ends start-up without stopping the steps before it, as kube-queue always did (Quarkus
 * fires no ShutdownEvent after a StartupEvent observer threw).
 */
class StartupStepsTest {

    private final List<String> log = new ArrayList<>();

    private StartupStep step(String name) {
        return new StartupStep(name, () -> log.add("start " + name), () -> log.add("stop " + name));
    }

    @Test
    void stepsStartInListOrderAndStopInTheReverseOrder() {
        StartupSteps steps = new StartupSteps(List.of(step("a"), step("b"), step("c")));
        steps.start();
        assertEquals(List.of("start a", "start b", "start c"), log);
        log.clear();
        steps.stop();
        assertEquals(List.of("stop c", "stop b", "stop a"), log);
        log.clear();
        steps.stop();
        assertEquals(List.of(), log, "each step is stopped once");
    }

    @Test
    void aStepThatFailsToStartEndsStartUpAndOnlyTheStepsThatStartedAreStopped() {
        IllegalStateException failure = new IllegalStateException("cannot list TFJob");
        StartupStep failing = new StartupStep("b", () -> {
            log.add("start b");
            throw failure;
        }, () -> log.add("stop b"));
        StartupSteps steps = new StartupSteps(List.of(step("a"), failing, step("c")));

        assertSame(failure, assertThrows(IllegalStateException.class, steps::start), "the step's own failure");
        assertEquals(List.of("start a", "start b"), log, "c never starts; a is not stopped by the failed start");

        log.clear();
        steps.stop();
        assertEquals(List.of("stop a"), log, "b did not start, so only a is stopped");
    }

    @Test
    void aStopThatThrowsEndsTheStoppingThere() {
        IllegalStateException failure = new IllegalStateException("drain interrupted");
        StartupStep failing = new StartupStep("b", () -> log.add("start b"), () -> {
            log.add("stop b");
            throw failure;
        });
        StartupSteps steps = new StartupSteps(List.of(step("a"), failing, step("c")));
        steps.start();
        log.clear();

        assertSame(failure, assertThrows(IllegalStateException.class, steps::stop));
        assertEquals(List.of("stop c", "stop b"), log);
    }

    @Test
    void aGateThatCannotStartYetLetsStartUpReturnAndTheStepsAfterItStartOnceItCan() throws InterruptedException {
        java.util.concurrent.atomic.AtomicInteger tries = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.CountDownLatch last = new java.util.concurrent.CountDownLatch(1);
        StartupStep gate = StartupStep.gate("key", () -> {
            log.add("try key");
            return tries.incrementAndGet() == 3;
        });
        StartupStep after = new StartupStep("c", () -> {
            log.add("start c");
            last.countDown();
        }, () -> log.add("stop c"));
        StartupSteps steps = new StartupSteps(List.of(step("a"), gate, after), java.time.Duration.ofMillis(1),
                e -> log.add("failed " + e.getMessage()));

        steps.start();
        assertEquals("start a", log.get(0), "start-up returned after the first try of the gate");
        assertEquals("try key", log.get(1));
        last.await();
        assertEquals(List.of("start a", "try key", "try key", "try key", "start c"), log);
        log.clear();
        steps.stop();
        assertEquals(List.of("stop c", "stop a"), log, "the gate has nothing to stop");
    }

    @Test
    void kubeQueueStartsInThisOrderUnderEitherPlugin() {
        assertEquals(List.of("settings", "job feed", "PriorityClasses", "quota groups (ElasticQuotaTree and its status)",
                        "record key", "recovery", "pods that ran (admission timeouts)", "readiness", "leadership"),
                names(QueueGroupPlugin.ELASTICQUOTA));
        assertEquals(List.of("settings", "job feed", "PriorityClasses",
                        "quota groups (ResourceQuotas and the pods of admitted jobs)", "record key", "recovery",
                        "pods that ran (admission timeouts)", "readiness", "leadership"),
                names(QueueGroupPlugin.RESOURCEQUOTA));
    }

    /** The names of kube-queue's start-up steps under a plugin; building the list starts nothing. */
    private static List<String> names(QueueGroupPlugin plugin) {
        KubeQueueConfig config = (KubeQueueConfig) Proxy.newProxyInstance(KubeQueueConfig.class.getClassLoader(),
                new Class<?>[] {KubeQueueConfig.class}, (proxy, method, args) -> {
                    if (method.getName().equals("queueGroupPlugin")) {
                        return plugin;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
        StartupRecovery startup = new StartupRecovery(null, config, null, null, null, null, null, null, null, null, null, null,
                null, null, null);
        return startup.steps().stream().map(StartupStep::name).toList();
    }
}
