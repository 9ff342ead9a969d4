package io.kubequeue.serving;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Date;
import java.util.List;
import java.util.Optional;

import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * The certificate kube-queue serves its HTTPS port with (the visibility API, the webhook), as PEM: the serving
 * certificate (chain), its private key, and the CA the API server is told to trust ({@code caBundle}).
 * <p>Self-signed ones are made here (BouncyCastle): a CA (ECDSA P-256, {@link #CA_VALIDITY}) and a serving
 * certificate it signs (ECDSA P-256, {@link #LEAF_VALIDITY}), for the Service's DNS names (the API server checks the
 * subject alternative names, not the common name), for server and client authentication (a follower presents it to
 * the leader). A renewed serving certificate is signed by the same CA while the CA has more than
 * {@link #CA_RENEW_BEFORE} left, so the {@code caBundle} the API server holds stays valid across renewals.
 *
 * @param certificatePem the serving certificate, leaf first, PEM
 * @param keyPem         its private key, PEM (PKCS#8, or whatever a mounted file holds: Vert.x reads PKCS#1/#8 and SEC1)
 * @param caPem          the CA certificate(s) that sign it, PEM; for a mounted certificate, what its {@code ca.crt} holds
 * @param caKeyPem       the CA's private key, PEM; null when kube-queue did not make the CA (cert-manager)
 */
public record ServingCertificate(String certificatePem, String keyPem, String caPem, String caKeyPem) {

    /** A self-signed CA lives this long. */
    public static final Duration CA_VALIDITY = Duration.ofDays(3650);
    /** A serving certificate lives this long. */
    public static final Duration LEAF_VALIDITY = Duration.ofDays(365);
    /** A serving certificate with less than this left is renewed. */
    public static final Duration LEAF_RENEW_BEFORE = Duration.ofDays(30);
    /** A CA with less than this left is replaced (and the {@code caBundle} with it). */
    public static final Duration CA_RENEW_BEFORE = Duration.ofDays(400);

    private static final SecureRandom RANDOM = new SecureRandom();

    /** The DNS names a Service is reached by inside the cluster, as the API server dials it. */
    public static List<String> serviceNames(String service, String namespace) {
        return List.of(service + "." + namespace + ".svc", service + "." + namespace + ".svc.cluster.local",
                service + "." + namespace, service);
    }

    /**
     * A new self-signed certificate for these DNS names: a new CA, or the given one while it has more than
     * {@link #CA_RENEW_BEFORE} left.
     *
     * @param dnsNames the names, the first the subject's common name
     * @param reuse    a certificate whose CA (with its key) may sign the new one; null for a new CA
     * @throws IllegalStateException if the JVM cannot make EC keys or sign (never on a standard JDK)
     */
    public static ServingCertificate selfSigned(List<String> dnsNames, ServingCertificate reuse, Instant now) {
        try {
            KeyPair caKeys;
            X509Certificate ca;
            Optional<X509Certificate> reusable = reuse == null || reuse.caKeyPem() == null ? Optional.empty()
                    : reuse.caCertificates().stream().findFirst()
                    .filter(c -> c.getNotAfter().toInstant().isAfter(now.plus(CA_RENEW_BEFORE)));
            if (reusable.isPresent()) {
                ca = reusable.get();
                caKeys = new KeyPair(ca.getPublicKey(), privateKey(reuse.caKeyPem()));
            } else {
                caKeys = ecKeys();
                X500Name caName = new X500Name("CN=kube-queue-ca@" + now.getEpochSecond());
                X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(caName, serial(), Date.from(now.minusSeconds(60)),
                        Date.from(now.plus(CA_VALIDITY)), caName, caKeys.getPublic());
                b.addExtension(Extension.basicConstraints, true, new BasicConstraints(0));
                b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
                b.addExtension(Extension.subjectKeyIdentifier, false,
                        new JcaX509ExtensionUtils().createSubjectKeyIdentifier(caKeys.getPublic()));
                ca = new JcaX509CertificateConverter().getCertificate(b.build(signer(caKeys.getPrivate())));
            }
            KeyPair leafKeys = ecKeys();
            X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(ca, serial(), Date.from(now.minusSeconds(60)),
                    Date.from(now.plus(LEAF_VALIDITY)), new X500Name("CN=" + dnsNames.get(0)), leafKeys.getPublic());
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
            b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
            b.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(
                    new KeyPurposeId[]{KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth}));
            b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(dnsNames.stream()
                    .map(n -> new GeneralName(GeneralName.dNSName, n)).toArray(GeneralName[]::new)));
            b.addExtension(Extension.authorityKeyIdentifier, false,
                    new JcaX509ExtensionUtils().createAuthorityKeyIdentifier(ca));
            X509Certificate leaf = new JcaX509CertificateConverter().getCertificate(b.build(signer(caKeys.getPrivate())));
            return new ServingCertificate(pem(leaf), pem(leafKeys.getPrivate()), pem(ca), pem(caKeys.getPrivate()));
        } catch (GeneralSecurityException | OperatorCreationException | IOException e) {
            throw new IllegalStateException("cannot make a self-signed certificate: " + e.getMessage(), e);
        }
    }

    /**
     * The serving certificate chain, leaf first.
     *
     * @throws IllegalArgumentException if {@link #certificatePem} holds no certificate
     */
    public List<X509Certificate> chain() {
        List<X509Certificate> chain = certificates(certificatePem);
        if (chain.isEmpty()) {
            throw new IllegalArgumentException("the serving certificate PEM holds no certificate");
        }
        return chain;
    }

    /** The serving certificate itself. */
    public X509Certificate leaf() {
        return chain().get(0);
    }

    /** The CA certificates ({@link #caPem}); empty if none. */
    public List<X509Certificate> caCertificates() {
        return caPem == null ? List.of() : certificates(caPem);
    }

    /**
     * Why this certificate should not be served for these names now, or empty if it may: unreadable, not yet or
     * soon no longer valid, missing a name, or not signed by its CA. Only checks a certificate kube-queue keeps
     * itself (a mounted one is served as it is: cert-manager renews it).
     */
    public Optional<String> unfitFor(List<String> dnsNames, Instant now) {
        try {
            X509Certificate leaf = leaf();
            if (leaf.getNotBefore().toInstant().isAfter(now)) {
                return Optional.of("it is not valid before " + leaf.getNotBefore().toInstant());
            }
            if (leaf.getNotAfter().toInstant().isBefore(now.plus(LEAF_RENEW_BEFORE))) {
                return Optional.of("it expires at " + leaf.getNotAfter().toInstant());
            }
            List<String> names = new ArrayList<>();
            Collection<List<?>> sans = leaf.getSubjectAlternativeNames();
            if (sans != null) {
                sans.stream().filter(s -> Integer.valueOf(GeneralName.dNSName).equals(s.get(0)))
                        .forEach(s -> names.add(String.valueOf(s.get(1))));
            }
            if (!names.containsAll(dnsNames)) {
                return Optional.of("it names " + names + ", not " + dnsNames);
            }
            if (caKeyPem == null || keyPem == null) {
                return Optional.of("its key or its CA's key is missing");
            }
            List<X509Certificate> cas = caCertificates();
            if (cas.isEmpty()) {
                return Optional.of("its CA is missing");
            }
            try {
                leaf.verify(cas.get(0).getPublicKey());
            } catch (java.security.SignatureException | java.security.InvalidKeyException e) {
                return Optional.of("it is not signed by its CA");
            }
            if (!pairs(caKeyPem, cas.get(0))) {
                return Optional.of("its CA's key is not the CA's");
            }
            return Optional.empty();
        } catch (GeneralSecurityException | RuntimeException e) {
            return Optional.of("it cannot be read (" + e.getClass().getSimpleName() + ")");
        }
    }

    /** Whether a PEM private key is the one of this certificate: a probe signed with it verifies. */
    private static boolean pairs(String keyPem, X509Certificate certificate) throws GeneralSecurityException {
        byte[] probe = "kube-queue".getBytes(StandardCharsets.US_ASCII);
        java.security.Signature sign = java.security.Signature.getInstance(certificate.getSigAlgName());
        sign.initSign(privateKey(keyPem));
        sign.update(probe);
        byte[] signature = sign.sign();
        java.security.Signature verify = java.security.Signature.getInstance(certificate.getSigAlgName());
        verify.initVerify(certificate.getPublicKey());
        verify.update(probe);
        return verify.verify(signature);
    }

    /** Every certificate of a PEM text, in order. */
    static List<X509Certificate> certificates(String pem) {
        try {
            List<X509Certificate> out = new ArrayList<>();
            for (Certificate c : CertificateFactory.getInstance("X.509")
                    .generateCertificates(new ByteArrayInputStream(pem.getBytes(StandardCharsets.US_ASCII)))) {
                out.add((X509Certificate) c);
            }
            return out;
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("not PEM certificates: " + e.getMessage(), e);
        }
    }

    /** A PEM private key in any of the forms PEM files hold (PKCS#8, PKCS#1 RSA, SEC1 EC). */
    static PrivateKey privateKey(String pem) {
        try (PEMParser parser = new PEMParser(new StringReader(pem))) {
            Object o = parser.readObject();
            JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
            if (o instanceof PEMKeyPair pair) {
                return converter.getKeyPair(pair).getPrivate();
            }
            if (o instanceof PrivateKeyInfo info) {
                return converter.getPrivateKey(info);
            }
            throw new IllegalArgumentException("not a PEM private key");
        } catch (IOException e) {
            throw new IllegalArgumentException("not a PEM private key: " + e.getMessage(), e);
        }
    }

    private static KeyPair ecKeys() throws GeneralSecurityException {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
        return g.generateKeyPair();
    }

    private static ContentSigner signer(PrivateKey key) throws OperatorCreationException {
        return new JcaContentSignerBuilder("SHA256withECDSA").build(key);
    }

    private static BigInteger serial() {
        return new BigInteger(128, RANDOM).abs().add(BigInteger.ONE);
    }

    private static String pem(Object o) throws IOException {
        StringWriter out = new StringWriter();
        try (JcaPEMWriter w = new JcaPEMWriter(out)) {
            if (o instanceof PrivateKey k) { // PKCS#8 ("PRIVATE KEY"): what every PEM reader takes, Vert.x's included
                w.writeObject(new org.bouncycastle.openssl.jcajce.JcaPKCS8Generator(k, null));
            } else {
                w.writeObject(o);
            }
        }
        return out.toString();
    }

    @Override
    public String toString() { // never the keys, in a log line or an exception
        return "ServingCertificate[" + (certificatePem == null ? "none" : "certificate") + "]";
    }
}
