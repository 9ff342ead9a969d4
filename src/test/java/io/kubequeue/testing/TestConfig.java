package io.kubequeue.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URL;
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

    /**
     * As {@link #fromEnv}, under the shipped {@code application.properties}, which maps the seed's env vars
     * ({@code QueueGroupPlugin}, {@code StrictPriority}, {@code StrictConsistency}) onto the settings.
     */
    public static KubeQueueConfig fromSeedEnv(Map<String, String> env) {
        URL shipped = TestConfig.class.getResource("/application.properties");
        try {
            return kubeQueue(new EnvConfigSource(env, 300), new PropertiesConfigSource(shipped, 250));
        } catch (IOException e) {
            throw new UncheckedIOException("application.properties", e);
        }
    }

    private static KubeQueueConfig kubeQueue(ConfigSource... sources) {
        SmallRyeConfig config = new SmallRyeConfigBuilder()
                .addDefaultInterceptors() // ${QueueGroupPlugin:elasticquota}, as Quarkus expands it
                .withMapping(KubeQueueConfig.class)
                .withConverter(Duration.class, 100, new DurationConverter()) // "1s", as Quarkus reads durations
                .withSources(sources)
                .build();
        return config.getConfigMapping(KubeQueueConfig.class);
    }

    /** The defaults. */
    public static KubeQueueConfig defaults() {
        return kubeQueue(Map.of());
    }
}
