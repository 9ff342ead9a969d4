package io.kubequeue.demo;

import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;

import java.net.InetAddress;
import java.util.HashMap;

import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.annotations.QuarkusMain;

/**
 * The demo's entry point: starts an embedded Kubernetes API server (the fabric8 mock server in CRUD mode),
 * points kube-queue at it, then runs {@link DemoApp}. Built only with the Maven profile {@code demo}, so
 * neither this class nor the mock server is part of the production artifact.
 *
 * <p>Options: {@code --example elasticquota|resourcequota} (the seed's two examples, default
 * elasticquota), {@code --dir PATH} (every *.yaml/*.yml/*.json there instead), {@code --plugin
 * elasticquota|resourcequota} (with --dir), {@code --speed F} (simulated run time = the job's
 * {@code sleep} × F, default 0.1), {@code --timeout S} (give up after S seconds, default 120).
 */
@QuarkusMain
public class DemoMain {

    public static void main(String... args) {
        DemoOptions options;
        try {
            options = DemoOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("demo: " + e.getMessage());
            System.err.println(DemoOptions.USAGE);
            System.exit(2);
            return;
        }
        KubernetesMockServer server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
                new KubernetesCrudDispatcher() {
                    /**
                     * kube-queue is the embedded server's only client and may do anything: its own access reviews (a
                     * declared kind's rights, docs/kinds.md) are answered allowed, as RBAC would for a cluster-admin.
                     */
                    @Override
                    public MockResponse dispatch(RecordedRequest request) {
                        if ("POST".equals(request.getMethod())
                                && request.getPath().startsWith("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews")) {
                            var review = Serialization.unmarshal(request.getBody().readUtf8(),
                                    io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReview.class);
                            review.setStatus(new io.fabric8.kubernetes.api.model.authorization.v1
                                    .SubjectAccessReviewStatus(true, false, null, null));
                            return new MockResponse().setResponseCode(201).setBody(Serialization.asJson(review));
                        }
                        return super.dispatch(request);
                    }
                }, false);
        server.init(InetAddress.getLoopbackAddress(), 0);

        String url = server.createClient().getConfiguration().getMasterUrl();
        // fabric8's own auto-configuration keys: the Quarkus ones are fixed at build time
        System.setProperty("kubernetes.master", url);
        System.setProperty("kubernetes.trust.certificates", "true");
        System.setProperty("kubernetes.namespace", "default");
        System.setProperty("QueueGroupPlugin", options.plugin());
        setDefault("quarkus.http.port", "0");
        setDefault("quarkus.management.port", "0");
        // the demo asks its read API in-process, as the only caller: no token to check against the mock server
        setDefault("kube-queue.read-api.authentication", "none");
        setDefault("quarkus.log.level", "WARN");
        setDefault("quarkus.log.category.\"io.kubequeue\".level", "INFO");
        setDefault("quarkus.log.category.\"io.kubequeue.quota\".level", "ERROR");
        setDefault("quarkus.log.category.\"io.fabric8.mockwebserver\".level", "ERROR");
        setDefault("quarkus.log.console.format", "%d{HH:mm:ss} %-5p %s%e%n");
        DemoApp.options = options;
        try {
            Quarkus.run(DemoApp.class, (code, failure) -> {
                server.destroy();
                if (failure != null) {
                    failure.printStackTrace();
                }
                System.exit(code);
            }, args);
        } finally {
            server.destroy();
        }
    }

    /** Sets a system property unless the user already did (-Dkey=value wins). */
    private static void setDefault(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }
}
