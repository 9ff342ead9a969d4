package io.kubequeue.visibility;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Who calls, as the API server's aggregation layer says (Kubernetes docs, "Configure the Aggregation Layer",
 * "Authentication flow"): the API server authenticates the user, then forwards the request over TLS with its
 * front-proxy client certificate and the user in request headers ({@code X-Remote-User}, {@code X-Remote-Group},
 * {@code X-Remote-Extra-<key>}). The headers are believed only from a client certificate that chains to the
 * request-header CA and, when the API server names any, whose common name is an allowed name: what
 * k8s.io/apiserver's delegated request-header authentication does.
 * <p>The settings are those the API server publishes in ConfigMap {@code kube-system/extension-apiserver-authentication}:
 * {@code requestheader-client-ca-file} (PEM), and JSON lists {@code requestheader-allowed-names},
 * {@code requestheader-username-headers}, {@code requestheader-group-headers},
 * {@code requestheader-extra-headers-prefix}.
 */
public final class FrontProxy {

    /** The ConfigMap's namespace and name. */
    public static final String CONFIG_MAP_NAMESPACE = "kube-system";
    /** See {@link #CONFIG_MAP_NAMESPACE}. */
    public static final String CONFIG_MAP_NAME = "extension-apiserver-authentication";

    private static final ObjectMapper JSON = new ObjectMapper();
    /** No caller sends more group or extra headers than this; past it the request is refused, not read. */
    static final int MAX_VALUES = 256;

    /** The header names a peer replica uses to name the caller it authenticated (k8s.io/apiserver's defaults). */
    static final String PEER_USER = "X-Remote-User";
    static final String PEER_GROUP = "X-Remote-Group";
    static final String PEER_EXTRA = "X-Remote-Extra-";

    private final X509TrustManager trust; // null: no request-header CA published, nobody is believed
    private final List<String> allowedNames;
    private final List<String> userHeaders;
    private final List<String> groupHeaders;
    private final List<String> extraPrefixes;

    private FrontProxy(X509TrustManager trust, List<String> allowedNames, List<String> userHeaders,
                       List<String> groupHeaders, List<String> extraPrefixes) {
        this.trust = trust;
        this.allowedNames = allowedNames;
        this.userHeaders = userHeaders;
        this.groupHeaders = groupHeaders;
        this.extraPrefixes = extraPrefixes;
    }

    /** Believes nobody: the ConfigMap could not be read (every aggregated request is 401 until it is). */
    public static FrontProxy none() {
        return new FrontProxy(null, List.of(), List.of(), List.of(), List.of());
    }

    /**
     * The settings of the ConfigMap's data.
     *
     * @param data the ConfigMap's {@code data}
     * @throws IllegalArgumentException if the CA is not PEM certificates or a list is not a JSON list of strings
     */
    public static FrontProxy of(Map<String, String> data) {
        String ca = data.get("requestheader-client-ca-file");
        X509TrustManager trust = ca == null || ca.isBlank() ? null : trustManager(ca);
        return new FrontProxy(trust, list(data, "requestheader-allowed-names"),
                list(data, "requestheader-username-headers"), list(data, "requestheader-group-headers"),
                list(data, "requestheader-extra-headers-prefix"));
    }

    /** The request-header CA's certificates: the issuers a TLS server names when it asks for a client certificate. */
    public List<X509Certificate> issuers() {
        return trust == null ? List.of() : List.of(trust.getAcceptedIssuers());
    }

    /**
     * The caller a peer replica names (after it authenticated them itself): {@code X-Remote-User},
     * {@code X-Remote-Group}, {@code X-Remote-Extra-<key>}. The caller of this method has checked that the client is
     * a peer replica; the header names are fixed, whatever the API server's.
     */
    public static Authenticated forwarded(Function<String, List<String>> headers, Collection<String> names) {
        return new FrontProxy(null, List.of(), List.of(PEER_USER), List.of(PEER_GROUP), List.of(PEER_EXTRA))
                .identify(headers, names);
    }

    /** The headers that name a caller to a peer replica ({@link #forwarded}), extra keys %-escaped. */
    public static Map<String, List<String>> forwardHeaders(Caller caller) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        out.put(PEER_USER, List.of(caller.user()));
        if (!caller.groups().isEmpty()) {
            out.put(PEER_GROUP, caller.groups());
        }
        // a space as %20, not +: unescapeExtraKey reads + as itself, as the API server's escaping sends it
        caller.extra().forEach((k, v) -> out.put(PEER_EXTRA + java.net.URLEncoder.encode(k, StandardCharsets.UTF_8)
                .replace("+", "%20"), v));
        return out;
    }

    /**
     * An extra key as k8s.io/apiserver reads it from its header name: %-escapes decoded as Go's url.PathUnescape
     * does ({@code +} stays {@code +}: the API server escapes keys with url.PathEscape, which leaves it), and a key
     * that does not unescape kept as sent.
     */
    static String unescapeExtraKey(String escaped) {
        try {
            return PathEscapes.unescape(escaped);
        } catch (IllegalArgumentException e) {
            return escaped;
        }
    }

    /** Whether a request-header CA is known (else no caller is believed). */
    public boolean trustsSomeone() {
        return trust != null;
    }

    /** Whether the client certificate is the front proxy's, or why not. */
    private Optional<String> unbelieved(List<Certificate> peer) {
        if (trust == null) {
            return Optional.of("kube-queue has no request-header CA (ConfigMap kube-system/"
                    + CONFIG_MAP_NAME + " unreadable or without requestheader-client-ca-file)");
        }
        if (peer.isEmpty() || !(peer.get(0) instanceof X509Certificate)) {
            return Optional.of("no client certificate: call through the API server (kubectl get --raw"
                    + " /apis/visibility.kube-queue.io/v1alpha1/...)");
        }
        X509Certificate[] chain = peer.stream().map(X509Certificate.class::cast).toArray(X509Certificate[]::new);
        try {
            trust.checkClientTrusted(chain, chain[0].getPublicKey().getAlgorithm());
        } catch (CertificateException | RuntimeException e) {
            return Optional.of("the client certificate is not the front proxy's: not signed by the request-header CA,"
                    + " out of its validity, or not for client authentication");
        }
        String cn = commonName(chain[0]);
        if (!allowedNames.isEmpty() && !allowedNames.contains(cn)) {
            return Optional.of("the client certificate's name " + cn + " is not a requestheader-allowed-name");
        }
        return Optional.empty();
    }

    /**
     * The caller of one request: the user and groups from the request headers, and the extra attributes from the
     * {@code X-Remote-Extra-<key>} headers (keys unescaped and lower-cased, as k8s.io/apiserver reads them).
     *
     * @param peer    the client's certificate chain as the TLS handshake got it, leaf first; empty if none was sent
     * @param headers the request's header values by name (case-insensitive lookup)
     * @param names   every header name of the request
     * @return the caller, or why the request is not authenticated (answered 401)
     */
    public Authenticated authenticate(List<Certificate> peer, Function<String, List<String>> headers,
                                      Collection<String> names) {
        Optional<String> why = unbelieved(peer);
        return why.isPresent() ? Authenticated.no(why.get()) : identify(headers, names);
    }

    /** The user, groups and extra attributes the headers name. */
    private Authenticated identify(Function<String, List<String>> headers, Collection<String> names) {
        String user = first(userHeaders, headers);
        if (user == null || user.isEmpty()) {
            return Authenticated.no("no user in the request headers " + userHeaders);
        }
        List<String> groups = new ArrayList<>();
        for (String h : groupHeaders) {
            groups.addAll(headers.apply(h));
        }
        if (groups.size() > MAX_VALUES) {
            return Authenticated.no("more than " + MAX_VALUES + " group headers");
        }
        Map<String, List<String>> extra = new LinkedHashMap<>();
        for (String name : names) {
            for (String prefix : extraPrefixes) {
                if (name.regionMatches(true, 0, prefix, 0, prefix.length()) && name.length() > prefix.length()) {
                    String key = unescapeExtraKey(name.substring(prefix.length())).toLowerCase(Locale.ROOT);
                    extra.computeIfAbsent(key, k -> new ArrayList<>()).addAll(headers.apply(name));
                }
            }
            if (extra.size() > MAX_VALUES) {
                return Authenticated.no("more than " + MAX_VALUES + " extra headers");
            }
        }
        Map<String, List<String>> copy = new LinkedHashMap<>();
        extra.forEach((k, v) -> copy.put(k, List.copyOf(v)));
        return Authenticated.as(new Caller(user, List.copyOf(groups), Map.copyOf(copy)));
    }

    /**
     * The outcome of authentication.
     *
     * @param caller who calls, if authenticated
     * @param why    why not, otherwise
     */
    public record Authenticated(Optional<Caller> caller, String why) {
        static Authenticated no(String why) {
            return new Authenticated(Optional.empty(), why);
        }

        static Authenticated as(Caller caller) {
            return new Authenticated(Optional.of(caller), null);
        }
    }

    private static String first(List<String> names, Function<String, List<String>> headers) {
        for (String h : names) {
            List<String> values = headers.apply(h);
            if (!values.isEmpty()) {
                return values.get(0);
            }
        }
        return null;
    }

    private static String commonName(X509Certificate cert) {
        try {
            for (javax.naming.ldap.Rdn rdn : new javax.naming.ldap.LdapName(
                    cert.getSubjectX500Principal().getName()).getRdns()) {
                if ("CN".equalsIgnoreCase(rdn.getType())) {
                    return String.valueOf(rdn.getValue());
                }
            }
        } catch (javax.naming.InvalidNameException e) {
            return "";
        }
        return "";
    }

    private static List<String> list(Map<String, String> data, String key) {
        String value = data.get(key);
        if (value == null || value.isBlank()) {
            return List.of();
        }
        try {
            return List.copyOf(JSON.readValue(value, new TypeReference<List<String>>() {
            }));
        } catch (java.io.IOException | NullPointerException e) {
            throw new IllegalArgumentException(key + " is not a JSON list of strings");
        }
    }

    private static X509TrustManager trustManager(String pem) {
        try {
            KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
            store.load(null, null);
            int i = 0;
            for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(
                    new ByteArrayInputStream(pem.getBytes(StandardCharsets.US_ASCII)))) {
                store.setCertificateEntry("ca-" + i++, c);
            }
            if (i == 0) {
                throw new IllegalArgumentException("requestheader-client-ca-file holds no certificate");
            }
            TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            factory.init(store);
            for (javax.net.ssl.TrustManager m : factory.getTrustManagers()) {
                if (m instanceof X509TrustManager x) {
                    return x;
                }
            }
            throw new IllegalStateException("the JVM has no X.509 trust manager");
        } catch (java.security.GeneralSecurityException | java.io.IOException e) {
            throw new IllegalArgumentException("requestheader-client-ca-file is not PEM certificates: " + e.getMessage());
        }
    }
}
