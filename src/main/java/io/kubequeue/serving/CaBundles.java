package io.kubequeue.serving;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;

/**
 * Tells the API server which CA signs kube-queue's serving certificate: {@code spec.caBundle} of the
 * {@code APIService} and {@code clientConfig.caBundle} of each webhook of the {@code MutatingWebhookConfiguration}
 * (Kubernetes docs, "Configure the Aggregation Layer" and "Dynamic Admission Control"). Written only where it differs,
 * so a restart or a second replica writes nothing; an object that does not exist is not an error (that part is not
 * installed) and is named in the answer.
 */
public final class CaBundles {

    /** The APIService's API, named in full: a generic resource by kind alone costs a discovery call first. */
    static final ResourceDefinitionContext API_SERVICES = new ResourceDefinitionContext.Builder()
            .withGroup("apiregistration.k8s.io").withVersion("v1").withKind("APIService").withPlural("apiservices")
            .withNamespaced(false).build();

    private final KubernetesClient client;
    private final String apiService;
    private final String webhookConfiguration;

    /**
     * @param apiService           the APIService's name; blank: none is written
     * @param webhookConfiguration the MutatingWebhookConfiguration's name; blank: none is written
     */
    public CaBundles(KubernetesClient client, String apiService, String webhookConfiguration) {
        this.client = client;
        this.apiService = apiService;
        this.webhookConfiguration = webhookConfiguration;
    }

    /**
     * What one pass did.
     *
     * @param written  the objects whose bundle was written now
     * @param missing  the objects that do not exist
     * @param failures the objects that could not be read or written, each with the reason
     */
    public record Outcome(List<String> written, List<String> missing, List<String> failures) {
    }

    /**
     * Writes the bundle where it differs.
     *
     * @param caPem the CA certificate(s), PEM
     */
    public Outcome write(String caPem) {
        String bundle = Base64.getEncoder().encodeToString(caPem.getBytes(StandardCharsets.US_ASCII));
        List<String> written = new ArrayList<>();
        List<String> missing = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        if (apiService != null && !apiService.isBlank()) {
            String what = "APIService " + apiService;
            try {
                GenericKubernetesResource found = client.genericKubernetesResources(API_SERVICES)
                        .withName(apiService).get();
                if (found == null) {
                    missing.add(what);
                } else if (!bundle.equals(caBundleOf(found))) {
                    client.genericKubernetesResources(API_SERVICES).withName(apiService)
                            .patch(PatchContext.of(PatchType.JSON_MERGE),
                                    "{\"spec\":{\"caBundle\":\"" + bundle + "\",\"insecureSkipTLSVerify\":false}}");
                    written.add(what);
                }
            } catch (KubernetesClientException e) {
                failures.add(what + " (" + e.getCode() + ")");
            }
        }
        if (webhookConfiguration != null && !webhookConfiguration.isBlank()) {
            String what = "MutatingWebhookConfiguration " + webhookConfiguration;
            try {
                MutatingWebhookConfiguration found = client.admissionRegistration().v1().mutatingWebhookConfigurations()
                        .withName(webhookConfiguration).get();
                if (found == null) {
                    missing.add(what);
                } else {
                    ArrayNode patch = JsonNodeFactory.instance.arrayNode();
                    List<MutatingWebhook> hooks = found.getWebhooks() == null ? List.of() : found.getWebhooks();
                    for (int i = 0; i < hooks.size(); i++) {
                        MutatingWebhook hook = hooks.get(i);
                        if (hook.getClientConfig() != null && hook.getClientConfig().getService() != null
                                && !bundle.equals(hook.getClientConfig().getCaBundle())) {
                            // the test pins the webhook at that index: an edit in between fails the patch, not the bundle
                            patch.addObject().put("op", "test").put("path", "/webhooks/" + i + "/name")
                                    .put("value", hook.getName());
                            patch.addObject().put("op", "add").put("path", "/webhooks/" + i + "/clientConfig/caBundle")
                                    .put("value", bundle);
                        }
                    }
                    if (!patch.isEmpty()) {
                        client.admissionRegistration().v1().mutatingWebhookConfigurations()
                                .withName(webhookConfiguration).patch(PatchContext.of(PatchType.JSON), patch.toString());
                        written.add(what);
                    }
                }
            } catch (KubernetesClientException e) {
                failures.add(what + " (" + e.getCode() + ")");
            }
        }
        return new Outcome(written, missing, failures);
    }

    private static String caBundleOf(GenericKubernetesResource apiService) {
        Object spec = apiService.getAdditionalProperties().get("spec");
        return spec instanceof Map<?, ?> m && m.get("caBundle") instanceof String s ? s : null;
    }
}
