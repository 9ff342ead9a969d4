/**
 * kube-queue's admission webhook: what it answers the API server for a job being created ({@link
 * io.kubequeue.webhook.SuspendAtCreation}: suspended, so that it is queued) and in which namespaces. It reads
 * AdmissionReviews as JSON and uses no other part of kube-queue but the settings; the kinds and the quota tree it
 * follows are handed in. Served on the HTTPS port by {@code serving.HttpsEndpoint}; the
 * MutatingWebhookConfiguration ships with the manifests and the chart.
 */
package io.kubequeue.webhook;
