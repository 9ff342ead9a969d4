package io.kubequeue.operator;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import jakarta.inject.Singleton;

import org.jboss.logging.Logger;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kubequeue.job.RecordSignatures;

/**
 * The key kube-queue signs its admission records and eviction histories with ({@link RecordSignatures}): Secret
 * {@value #NAME} in kube-queue's own namespace (the Lease's), data {@value #KEY} (at least
 * {@value RecordSignatures#MIN_KEY_BYTES} random bytes) and, during a rotation, {@value #PREVIOUS_KEY} (still accepted,
 * never used to sign). Every replica reads it at start-up, before recovery: followers check records too. If it does
 * not exist, kube-queue creates it with {@value #GENERATED_KEY_BYTES} bytes from {@link SecureRandom}; two replicas
 * racing to create it both end with the one that was created first (create; on 409 read).
 *
 * <p>If it can be neither read nor created (RBAC, the namespace missing, an API server away, a key too short), the
 * replica does not crash-loop: it reports not ready with the reason and the fix ({@link #problem()}, readiness data
 * {@code recordKey}), logs each new problem once, and start-up tries again (1 s, doubling to 30 s) until it can.
 */
@Singleton
public class RecordKeySecret {

    private static final Logger LOG = Logger.getLogger(RecordKeySecret.class);

    /** The Secret's name. */
    public static final String NAME = "kube-queue-record-key";
    /** The data key of the key that signs. */
    public static final String KEY = "key";
    /** The data key of the key before a rotation: accepted, not used to sign. Optional. */
    public static final String PREVIOUS_KEY = "previous-key";
    /** The size of a key kube-queue generates: 256 bits, the HMAC-SHA256 block's half (RFC 2104 §3). */
    static final int GENERATED_KEY_BYTES = 32;

    private final KubernetesClient client;
    private final RecordSignatures signatures;
    private volatile Optional<String> problem = Optional.empty();
    private String logged;

    /** Built by CDI. */
    public RecordKeySecret(KubernetesClient client, RecordSignatures signatures) {
        this.client = client;
        this.signatures = signatures;
    }

    /** Why the key cannot be had now, in one line with the fix; empty once it is loaded, or before it is tried. */
    public Optional<String> problem() {
        return problem;
    }

    /**
     * One try: reads (or creates) the Secret and hands its keys to {@link RecordSignatures}. Start-up tries again
     * with backoff until it succeeds ({@link StartupStep#gate}); meanwhile {@link #problem()} says why.
     *
     * @param namespace kube-queue's own namespace
     * @return true once the keys are in force
     */
    boolean tryLoad(String namespace) {
        String where = "Secret " + namespace + "/" + NAME;
        try {
            Secret secret = client.secrets().inNamespace(namespace).withName(NAME).get();
            if (secret == null) {
                secret = create(namespace);
            }
            List<byte[]> keys = keys(secret, where);
            signatures.useKeys(keys.get(0), keys.subList(1, keys.size()));
            problem = Optional.empty();
            synchronized (this) {
                if (logged != null) {
                    LOG.infof("record key read from %s: the earlier problem is gone", where);
                    logged = null;
                }
            }
            LOG.infof("admission records are signed with the key of %s%s", where,
                    keys.size() > 1 ? " (" + PREVIOUS_KEY + " still accepted)" : "");
            return true;
        } catch (KubernetesClientException e) {
            report(describe(e, namespace, where));
        } catch (IllegalArgumentException e) {
            report("the record key cannot be used: " + where + " " + e.getMessage() + ". Fix: delete the Secret"
                    + " (kube-queue creates a new key; every record signed with the old one is then re-written, see"
                    + " docs/security.md) or put a key of at least 32 random bytes in data." + KEY + UNTIL);
        }
        return false;
    }

    private static final String UNTIL = "; until then this replica reads no job, admits nothing and reports not ready";

    private Secret create(String namespace) {
        byte[] key = new byte[GENERATED_KEY_BYTES];
        new SecureRandom().nextBytes(key);
        Secret secret = new SecretBuilder().withNewMetadata().withName(NAME).withNamespace(namespace)
                .withLabels(Map.of("app.kubernetes.io/name", "kube-queue-controller",
                        "app.kubernetes.io/component", "record-key"))
                .endMetadata().withType("Opaque")
                .withData(Map.of(KEY, Base64.getEncoder().encodeToString(key))).build();
        try {
            Secret created = client.secrets().inNamespace(namespace).resource(secret).create();
            LOG.infof("created Secret %s/%s with a new record key", namespace, NAME);
            return created;
        } catch (KubernetesClientException e) {
            if (e.getCode() != 409) {
                throw e;
            }
            // another replica created it first: use that one
            Secret theirs = client.secrets().inNamespace(namespace).withName(NAME).get();
            if (theirs == null) {
                throw e;
            }
            return theirs;
        }
    }

    /** The signing key, then the one still accepted, if any. */
    private static List<byte[]> keys(Secret secret, String where) {
        Map<String, String> data = secret.getData() == null ? Map.of() : secret.getData();
        List<byte[]> keys = new ArrayList<>();
        keys.add(decode(data.get(KEY), KEY));
        if (data.get(PREVIOUS_KEY) != null && !data.get(PREVIOUS_KEY).isEmpty()) {
            keys.add(decode(data.get(PREVIOUS_KEY), PREVIOUS_KEY));
        }
        return keys;
    }

    private static byte[] decode(String base64, String name) {
        if (base64 == null || base64.isEmpty()) {
            throw new IllegalArgumentException("has no data." + name);
        }
        byte[] key;
        try {
            key = Base64.getDecoder().decode(base64);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("has data." + name + " that is not base64");
        }
        if (key.length < RecordSignatures.MIN_KEY_BYTES) {
            throw new IllegalArgumentException("has data." + name + " of " + key.length + " bytes, fewer than "
                    + RecordSignatures.MIN_KEY_BYTES);
        }
        return key;
    }

    private static String describe(KubernetesClientException e, String namespace, String where) {
        String server = e.getStatus() != null && e.getStatus().getMessage() != null ? e.getStatus().getMessage()
                : e.getMessage();
        return switch (e.getCode()) {
            case 403 -> "the record key cannot be read: the API server forbids this replica " + where + " (" + server
                    + "). Fix: grant get on secrets named " + NAME + " and create on secrets in namespace " + namespace
                    + " to its ServiceAccount (Role kube-queue-controller-record-key of the install manifests)" + UNTIL;
            case 401 -> "the record key cannot be read: the API server does not accept this replica's credentials ("
                    + server + "). Fix: its kubeconfig or ServiceAccount token" + UNTIL;
            case 404 -> "the record key cannot be created: namespace \"" + namespace + "\" does not exist (" + server
                    + "). Fix: create it, or point POD_NAMESPACE or KUBE_QUEUE_LEADER_ELECTION_NAMESPACE at kube-queue's"
                    + " namespace" + UNTIL;
            default -> "the record key cannot be read from " + where + " now (HTTP " + e.getCode() + ": " + server
                    + "); trying again" + UNTIL;
        };
    }

    private void report(String message) {
        problem = Optional.of(message);
        synchronized (this) {
            if (!message.equals(logged)) {
                LOG.error(message);
                logged = message;
            }
        }
    }
}
