/**
 * kube-queue's admission webhook: what it answers the API server for a job being created ({@link
 * io.kubequeue.webhook.SuspendAtCreation}: suspended, so that it is queued). It reads AdmissionReviews as JSON and
 * uses no other part of kube-queue; the settings and kinds it follows are handed in. Not served yet (issue 29): the
 * HTTPS endpoint, its certificate and the MutatingWebhookConfiguration come with the aggregated API's TLS serving.
 */
package io.kubequeue.webhook;
