package io.kubequeue.operator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Base64;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.kubequeue.job.RecordFields;
import io.kubequeue.job.RecordSignatures;
import io.kubequeue.testing.StrictApiServer;
import io.kubequeue.testing.TrustedRecords;

/**
 * The record key's Secret against the strict test API server: created when absent (32 random bytes), read when it
 * exists (also when another replica created it first), and when it can be neither (RBAC), a reason and the fix for
 * readiness, logged once, and tried again until it can, without a restart.
 */
class RecordKeySecretTest {

    private static final String SECRET = "/api/v1/namespaces/kube-queue/secrets";
    private static final RecordFields FIELDS = new RecordFields("root.a", "2026-01-01T00:00:00.000Z", "", "", "", "");

    private KubernetesMockServer server;
    private KubernetesClient client;
    private final RecordSignatures signatures = new RecordSignatures();

    @BeforeEach
    void setUp() {
        server = StrictApiServer.started();
        client = server.createClient();
    }

    @AfterEach
    void tearDown() {
        client.close();
        server.destroy();
    }

    /** Tries as start-up does, until it can; how many tries it took. */
    private static int load(RecordKeySecret secret) {
        int tries = 1;
        while (!secret.tryLoad("kube-queue")) {
            tries++;
        }
        return tries;
    }

    private Secret stored() {
        return client.secrets().inNamespace("kube-queue").withName(RecordKeySecret.NAME).get();
    }

    @Test
    void anAbsentSecretIsCreatedWithARandomKeyThatThenSigns() {
        load(new RecordKeySecret(client, signatures));

        byte[] key = Base64.getDecoder().decode(stored().getData().get(RecordKeySecret.KEY));
        assertEquals(32, key.length);
        assertEquals(TrustedRecords.signatures(key).sign("u", FIELDS), signatures.sign("u", FIELDS));

        RecordSignatures again = new RecordSignatures();
        load(new RecordKeySecret(client, again));
        assertEquals(signatures.sign("u", FIELDS), again.sign("u", FIELDS), "a restart reads the same key");
    }

    @Test
    void anExistingSecretIsUsed_itsPreviousKeyStillAccepted() {
        byte[] previous = "an older record key of 32 bytes!".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        client.secrets().inNamespace("kube-queue").resource(new SecretBuilder().withNewMetadata()
                .withName(RecordKeySecret.NAME).withNamespace("kube-queue").endMetadata()
                .withData(Map.of(RecordKeySecret.KEY, Base64.getEncoder().encodeToString(TrustedRecords.KEY),
                        RecordKeySecret.PREVIOUS_KEY, Base64.getEncoder().encodeToString(previous))).build()).create();

        load(new RecordKeySecret(client, signatures));

        assertEquals(TrustedRecords.signatures().sign("u", FIELDS), signatures.sign("u", FIELDS));
        Map<String, String> old = TrustedRecords.signed(TrustedRecords.signatures(previous), "u", FIELDS.asAnnotations());
        assertEquals(RecordSignatures.Trust.TRUSTED, signatures.read("u", old).trust());
    }

    @Test
    void anotherReplicaCreatingItFirstWins() {
        // this replica's read finds nothing, then the other replica's create lands before ours (409)
        server.expect().get().withPath(SECRET + "/" + RecordKeySecret.NAME).andReturn(404,
                "{\"kind\":\"Status\",\"code\":404,\"reason\":\"NotFound\"}").once();
        client.secrets().inNamespace("kube-queue").resource(new SecretBuilder().withNewMetadata()
                .withName(RecordKeySecret.NAME).withNamespace("kube-queue").endMetadata()
                .withData(Map.of(RecordKeySecret.KEY, Base64.getEncoder().encodeToString(TrustedRecords.KEY))).build())
                .create();

        load(new RecordKeySecret(client, signatures));

        assertEquals(TrustedRecords.signatures().sign("u", FIELDS), signatures.sign("u", FIELDS), "the first one's key");
    }

    @Test
    void forbiddenSaysWhatToGrantAndTriesAgainUntilItMay() {
        String forbidden = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"message\":\"secrets \\\""
                + RecordKeySecret.NAME + "\\\" is forbidden: User \\\"system:serviceaccount:kube-queue:kube-queue-controller"
                + "\\\" cannot get resource \\\"secrets\\\"\",\"reason\":\"Forbidden\",\"code\":403}";
        server.expect().get().withPath(SECRET + "/" + RecordKeySecret.NAME).andReturn(403, forbidden).times(3);
        RecordKeySecret secret = new RecordKeySecret(client, signatures);

        assertFalse(secret.tryLoad("kube-queue"));
        String problem = secret.problem().orElseThrow();
        assertTrue(problem.contains("forbids this replica Secret kube-queue/kube-queue-record-key"), problem);
        assertTrue(problem.contains("Role kube-queue-controller-record-key"), problem);
        assertTrue(problem.contains("reports not ready"), problem);
        assertFalse(signatures.hasKey());

        assertEquals(3, load(secret), "two more refusals, then the grant: no restart");
        assertTrue(signatures.hasKey());
        assertTrue(secret.problem().isEmpty());
        assertEquals(1, List.of(stored()).size());
    }

    @Test
    void aKeyTooShortIsNotOverwrittenButReported() {
        client.secrets().inNamespace("kube-queue").resource(new SecretBuilder().withNewMetadata()
                .withName(RecordKeySecret.NAME).withNamespace("kube-queue").endMetadata()
                .withData(Map.of(RecordKeySecret.KEY, Base64.getEncoder().encodeToString(new byte[8]))).build())
                .create();
        RecordKeySecret secret = new RecordKeySecret(client, signatures);

        assertFalse(secret.tryLoad("kube-queue"));
        assertTrue(secret.problem().orElseThrow().contains("of 8 bytes, fewer than 32"), secret.problem().get());
        assertEquals(Base64.getEncoder().encodeToString(new byte[8]), stored().getData().get(RecordKeySecret.KEY));
    }
}
