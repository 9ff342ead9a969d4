package io.kubequeue.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.function.Consumer;

import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.quarkus.test.common.QuarkusTestResource;

/**
 * A {@code @QuarkusTest} runs against a {@link StrictApiServer} of its own, which kube-queue's client and the
 * test's injected {@code KubernetesClient} both reach. A field {@code @KubernetesTestServer KubernetesMockServer
 * server} receives it, for expectations ({@code server.expect()}) set during the test.
 */
@QuarkusTestResource(value = StrictApiServerResource.class, restrictToAnnotatedClass = true)
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface WithStrictApiServer {

    /** Prepares the server before kube-queue starts: objects that exist already, expectations (faults). */
    Class<? extends Consumer<KubernetesMockServer>> setup() default NoSetup.class;

    /** No preparation. */
    final class NoSetup implements Consumer<KubernetesMockServer> {
        @Override
        public void accept(KubernetesMockServer server) {
        }
    }
}
