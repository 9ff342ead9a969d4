package io.kubequeue.testing;

import java.time.Duration;
import java.util.Map;

import org.eclipse.microprofile.config.spi.ConfigSource;

import io.kubequeue.config.KubeQueueConfig;
import io.quarkus.runtime.configuration.DurationConverter;
import io.smallrye.config.EnvConfigSource;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;

/** {@link KubeQueueConfig} without Quarkus, for plain unit tests: the defaults, plus the properties (or env vars) given. */
public final class TestConfig {

    private TestConfig() {
    }

    /**
     * @param properties e.g. {@code kube-queue.watch-namespaces=a,b}; validated as at start-up
     * @throws java.util.NoSuchElementException or {@link IllegalArgumentException} for a bad value, as SmallRye does
     */
    public static KubeQueueConfig kubeQueue(Map<String, String> properties) {
        return kubeQueue(new PropertiesConfigSource(properties, "test", 500));
    }

    /**
     * @param env env vars, e.g. {@code KUBE_QUEUE_ADMISSION_TIMEOUT=15m}, read as SmallRye reads the environment
     * @throws java.util.NoSuchElementException or {@link IllegalArgumentException} for a bad value, as SmallRye does
     */
    public static KubeQueueConfig fromEnv(Map<String, String> env) {
        return kubeQueue(new EnvConfigSource(env, 300));
    }

    private static KubeQueueConfig kubeQueue(ConfigSource source) {
        SmallRyeConfig config = new SmallRyeConfigBuilder()
                .withMapping(KubeQueueConfig.class)
                .withConverter(Duration.class, 100, new DurationConverter()) // "1s", as Quarkus reads durations
                .withSources(source)
                .build();
        return config.getConfigMapping(KubeQueueConfig.class);
    }

    /** The defaults. */
    public static KubeQueueConfig defaults() {
        return kubeQueue(Map.of());
    }
}
