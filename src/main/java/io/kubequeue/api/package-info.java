/**
 * The read-only HTTP API (JSON under {@code /api/v1}, OpenAPI at {@code /q/openapi}): answers from the
 * in-memory scheduler only, never with extra API-server calls. May read the scheduler; writes nothing.
 */
package io.kubequeue.api;
