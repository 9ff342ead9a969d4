package io.kubequeue.testing;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kubequeue.job.Annotations;
import io.kubequeue.job.RecordFields;
import io.kubequeue.job.RecordSignatures;
import io.kubequeue.operator.RecordKeySecret;

/**
 * The one way tests write an admission record or eviction history that kube-queue trusts: signed as kube-queue signs
 * them ({@link RecordSignatures}), over the job's uid. Unit tests sign with {@link #KEY}; tests against an API server
 * sign with the key of the cluster's Secret {@value RecordKeySecret#NAME}, which {@link #clusterKey} creates with
 * {@link #KEY} before kube-queue starts (kube-queue then reads it, as it reads an existing Secret).
 */
public final class TrustedRecords {

    /** The record key of the tests: 32 bytes. */
    public static final byte[] KEY = "kube-queue tests' record key 32B".getBytes(StandardCharsets.UTF_8);
    /** Where kube-queue keeps its Secret in the tests (the Lease's namespace: no POD_NAMESPACE is set). */
    public static final String NAMESPACE = "kube-queue";

    private TrustedRecords() {
    }

    /** Signatures with {@link #KEY}, for a feed or patch built in a unit test. */
    public static RecordSignatures signatures() {
        return signatures(KEY);
    }

    /** Signatures with another key (e.g. a key kube-queue does not hold). */
    public static RecordSignatures signatures(byte[] key) {
        RecordSignatures signatures = new RecordSignatures();
        signatures.useKeys(key, List.of());
        return signatures;
    }

    /** {@code annotations} and the signature of their signed set, for the job of {@code uid}, with {@link #KEY}. */
    public static Map<String, String> signed(String uid, Map<String, String> annotations) {
        return signed(signatures(), uid, annotations);
    }

    /**
     * {@code annotations} and the signature of their signed set, for the job of {@code uid}; a preemptor in
     * {@link Annotations#EVICTED_FOR} written as {@code Kind/namespace/name} is sealed first, as kube-queue writes it
     * ({@link RecordSignatures#seal}).
     */
    public static Map<String, String> signed(RecordSignatures signatures, String uid, Map<String, String> annotations) {
        Map<String, String> all = new HashMap<>(annotations);
        String preemptor = all.get(Annotations.EVICTED_FOR);
        if (preemptor != null && !preemptor.isEmpty() && !preemptor.startsWith("v1.")) {
            all.put(Annotations.EVICTED_FOR, signatures.seal(uid, preemptor));
        }
        all.put(Annotations.RECORD_SIGNATURE, signatures.sign(uid, RecordFields.of(all)));
        return all;
    }

    /** The preemptor as kube-queue reads it back from a victim's {@link Annotations#EVICTED_FOR}, with {@link #KEY}. */
    public static String opened(String uid, String sealed) {
        return signatures().open(uid, sealed);
    }

    /**
     * The record key of the cluster: that of its Secret, which is created with {@link #KEY} if it does not exist (as
     * a setup before kube-queue starts does).
     */
    public static RecordSignatures clusterKey(KubernetesClient client) {
        Secret secret = client.secrets().inNamespace(NAMESPACE).withName(RecordKeySecret.NAME).get();
        if (secret == null) {
            Secret made = new SecretBuilder().withNewMetadata().withName(RecordKeySecret.NAME).withNamespace(NAMESPACE)
                    .endMetadata().withType("Opaque")
                    .withData(Map.of(RecordKeySecret.KEY, Base64.getEncoder().encodeToString(KEY))).build();
            try {
                secret = client.secrets().inNamespace(NAMESPACE).resource(made).create();
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409) {
                    throw e;
                }
                secret = client.secrets().inNamespace(NAMESPACE).withName(RecordKeySecret.NAME).get();
            }
        }
        return signatures(Base64.getDecoder().decode(secret.getData().get(RecordKeySecret.KEY)));
    }

    /**
     * Creates the job as given, then signs the record and history it carries as kube-queue would have (the uid is
     * the API server's, so the signature is written by a second request).
     *
     * @return the job as stored, signed
     */
    public static <T extends HasMetadata> T createSigned(KubernetesClient client, T job) {
        RecordSignatures signatures = clusterKey(client);
        T created = client.resource(job).create();
        return client.resource(created).edit(j -> {
            Map<String, String> annotations = j.getMetadata().getAnnotations();
            j.getMetadata().setAnnotations(signed(signatures, j.getMetadata().getUid(), annotations));
            return j;
        });
    }
}
