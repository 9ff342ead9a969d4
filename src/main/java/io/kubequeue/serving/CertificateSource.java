package io.kubequeue.serving;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.jboss.logging.Logger;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;

/**
 * Where the served certificate comes from (docs/visibility.md, "Certificates"): mounted files (cert-manager's
 * Secret: {@code tls.crt}, {@code tls.key}, {@code ca.crt} beside them), served as they are, or the Secret
 * {@code kube-queue-tls} in kube-queue's namespace, which kube-queue fills itself with a self-signed certificate
 * ({@link ServingCertificate#selfSigned}) when it is missing, unreadable, about to expire or made for other names.
 * Two replicas that both find it so race with create (or update with the {@code resourceVersion} they read); the
 * loser of a 409 reads the winner's, so every replica serves one certificate.
 */
public final class CertificateSource {

    private static final Logger LOG = Logger.getLogger(CertificateSource.class);
    /** The data keys of the Secret: those of type {@code kubernetes.io/tls}, and cert-manager's {@code ca.crt}. */
    static final String CERT = "tls.crt";
    static final String KEY = "tls.key";
    static final String CA = "ca.crt";
    /** The CA's key: only in a Secret kube-queue made, so it can renew the serving certificate under the same CA. */
    static final String CA_KEY = "ca.key";

    private final KubernetesClient client;
    private final Optional<Path> certFile;
    private final Optional<Path> keyFile;
    private final String namespace;
    private final String secret;
    private final List<String> names;
    private final Clock clock;

    /**
     * @param certFile  a mounted certificate chain; with {@code keyFile}, the Secret is not used
     * @param namespace kube-queue's namespace, where the Secret and the Service are
     * @param secret    the Secret's name
     * @param service   the Service the API server dials, whose DNS names the certificate must carry
     */
    public CertificateSource(KubernetesClient client, Optional<Path> certFile, Optional<Path> keyFile,
                             String namespace, String secret, String service, Clock clock) {
        if (certFile.isPresent() != keyFile.isPresent()) {
            throw new IllegalArgumentException("kube-queue.serving.cert-file and kube-queue.serving.key-file go"
                    + " together: set both (a mounted certificate) or neither (a self-signed one in Secret "
                    + secret + ")");
        }
        this.client = client;
        this.certFile = certFile;
        this.keyFile = keyFile;
        this.namespace = namespace;
        this.secret = secret;
        this.names = ServingCertificate.serviceNames(service, namespace);
        this.clock = clock;
    }

    /** Whether the certificate is kube-queue's own (so it writes the {@code caBundle}s), not a mounted one. */
    public boolean selfSigned() {
        return certFile.isEmpty();
    }

    /** Where the certificate comes from, for log lines. */
    public String describe() {
        return certFile.map(f -> "files " + f + " and " + keyFile.orElseThrow())
                .orElse("Secret " + namespace + "/" + secret);
    }

    /**
     * The certificate to serve now: the files as they are, or the Secret's, made anew first when it is unfit.
     *
     * @throws IllegalStateException with the reason and the fix when it cannot be had (files unreadable, the Secret
     *                               neither readable nor writable): the caller tries again later
     */
    public ServingCertificate current() {
        if (certFile.isPresent()) {
            return fromFiles();
        }
        String where = "Secret " + namespace + "/" + secret;
        Secret found;
        try {
            found = client.secrets().inNamespace(namespace).withName(secret).get();
        } catch (KubernetesClientException e) {
            throw new IllegalStateException("cannot read " + where + " (" + e.getCode() + "): grant kube-queue get"
                    + " on it (docs/install.md, RBAC)");
        }
        ServingCertificate stored = found == null ? null : fromSecret(found);
        Optional<String> unfit = stored == null ? Optional.of("it does not exist")
                : stored.unfitFor(names, clock.instant());
        if (unfit.isEmpty()) {
            return stored;
        }
        ServingCertificate made = ServingCertificate.selfSigned(names, stored, clock.instant());
        Map<String, String> data = new HashMap<>();
        data.put(CERT, b64(made.certificatePem()));
        data.put(KEY, b64(made.keyPem()));
        data.put(CA, b64(made.caPem()));
        data.put(CA_KEY, b64(made.caKeyPem()));
        try {
            if (found == null) {
                client.secrets().inNamespace(namespace).resource(new SecretBuilder()
                        .withMetadata(new ObjectMetaBuilder().withName(secret).withNamespace(namespace)
                                .addToLabels("app.kubernetes.io/part-of", "kube-queue").build())
                        .withType("kubernetes.io/tls").withData(data).build()).create();
            } else {
                found.setData(data);
                client.secrets().inNamespace(namespace).resource(found).update(); // with the resourceVersion read
            }
            LOG.infof("serving certificate: made a new self-signed one for %s in %s, because %s", names.get(0), where,
                    unfit.get());
            return made;
        } catch (KubernetesClientException e) {
            if (e.getCode() == 409) { // another replica wrote first: serve theirs
                Secret theirs = client.secrets().inNamespace(namespace).withName(secret).get();
                ServingCertificate winner = theirs == null ? null : fromSecret(theirs);
                if (winner != null && winner.unfitFor(names, clock.instant()).isEmpty()) {
                    return winner;
                }
            }
            throw new IllegalStateException("cannot write " + where + " (" + e.getCode() + "): grant kube-queue"
                    + " create and update on it (docs/install.md, RBAC)");
        }
    }

    private ServingCertificate fromFiles() {
        try {
            String cert = Files.readString(certFile.get(), StandardCharsets.US_ASCII);
            String key = Files.readString(keyFile.get(), StandardCharsets.US_ASCII);
            Path caFile = certFile.get().resolveSibling(CA);
            String ca = Files.isReadable(caFile) ? Files.readString(caFile, StandardCharsets.US_ASCII) : null;
            ServingCertificate c = new ServingCertificate(cert, key, ca, null);
            c.leaf(); // fails on a file that holds no certificate
            return c;
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("cannot read the serving certificate from " + describe() + ": "
                    + e.getMessage());
        }
    }

    /** The Secret's certificate, or null when its data is missing or not PEM (made anew then). */
    private static ServingCertificate fromSecret(Secret s) {
        Map<String, String> data = s.getData();
        if (data == null || data.get(CERT) == null || data.get(KEY) == null) {
            return null;
        }
        try {
            return new ServingCertificate(unb64(data.get(CERT)), unb64(data.get(KEY)),
                    data.get(CA) == null ? null : unb64(data.get(CA)),
                    data.get(CA_KEY) == null ? null : unb64(data.get(CA_KEY)));
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static String b64(String s) {
        return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.US_ASCII));
    }

    private static String unb64(String s) {
        return new String(Base64.getDecoder().decode(s), StandardCharsets.US_ASCII);
    }
}
