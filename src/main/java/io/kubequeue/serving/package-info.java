/**
 * kube-queue's HTTPS port (docs/visibility.md): the TLS server of the visibility API and the admission webhook
 * ({@link io.kubequeue.serving.HttpsEndpoint}), its certificate ({@link io.kubequeue.serving.ServingCertificate},
 * {@link io.kubequeue.serving.CertificateSource}) and the {@code caBundle}s the API server trusts it by
 * ({@link io.kubequeue.serving.CaBundles}). Reads and writes Secret {@code kube-queue-tls}; reads ConfigMap
 * {@code kube-system/extension-apiserver-authentication}; patches the {@code caBundle} of its APIService and webhook
 * configuration.
 */
package io.kubequeue.serving;
