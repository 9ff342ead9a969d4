package io.kubequeue.testing;

import java.time.Duration;
import java.util.Map;

import io.kubequeue.config.KubeQueueConfig;
import io.quarkus.runtime.configuration.DurationConverter;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;

/** {@link KubeQueueConfig} without Quarkus, for plain unit tests: the defaults, plus the properties given. */
public final class TestConfig {

    private TestConfig() {
    }

    /**
     * @param properties e.g. {@code kube-queue.watch-namespaces=a,b}; validated as at start-up
     * @throws java.util.NoSuchElementException or {@link IllegalArgumentException} for a bad value, as SmallRye does
     */
    public static KubeQueueConfig kubeQueue(Map<String, String> properties) {
        SmallRyeConfig config = new SmallRyeConfigBuilder()
                .withMapping(KubeQueueConfig.class)
                .withConverter(Duration.class, 100, new DurationConverter()) // "1s", as Quarkus reads durations
                .withSources(new PropertiesConfigSource(properties, "test", 500))
                .build();
        return config.getConfigMapping(KubeQueueConfig.class);
    }

    /** The defaults. */
    public static KubeQueueConfig defaults() {
        return kubeQueue(Map.of());
    }
}
