package io.kubequeue.testing;

import java.util.Map;
import java.util.function.Consumer;

import io.fabric8.kubernetes.client.NamespacedKubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.quarkus.test.common.QuarkusTestResourceConfigurableLifecycleManager;
import io.quarkus.test.kubernetes.client.KubernetesTestServer;

/**
 * Starts the {@link StrictApiServer} of a {@link WithStrictApiServer} test class and points kube-queue's client at
 * it (the same fabric8 settings Quarkus' own {@code @WithKubernetesTestServer} sets).
 */
public class StrictApiServerResource implements QuarkusTestResourceConfigurableLifecycleManager<WithStrictApiServer> {

    private Consumer<KubernetesMockServer> setup;
    private KubernetesMockServer server;
    private Map<String, String> config = Map.of();

    @Override
    public void init(WithStrictApiServer annotation) {
        try {
            setup = annotation.setup().getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot create the setup " + annotation.setup(), e);
        }
    }

    @Override
    public Map<String, String> start() {
        server = StrictApiServer.started();
        setup.accept(server);
        try (NamespacedKubernetesClient client = server.createClient()) {
            String url = client.getConfiguration().getMasterUrl();
            config = Map.of("kubernetes.master", url,
                    "kubernetes.trust.certificates", "true",
                    "kubernetes.auth.tryKubeConfig", "false",
                    "kubernetes.auth.tryServiceAccount", "false",
                    "kubernetes.namespace", "test",
                    "http2.disable", "true");
            // fabric8 reads its settings from system properties too (the client a test builds itself)
            config.forEach(System::setProperty);
            return config;
        }
    }

    @Override
    public void inject(TestInjector injector) {
        injector.injectIntoFields(server,
                new TestInjector.AnnotatedAndMatchesType(KubernetesTestServer.class, KubernetesMockServer.class));
    }

    @Override
    public void stop() {
        if (server != null) {
            server.destroy();
        }
        config.keySet().forEach(System::clearProperty);
    }
}
