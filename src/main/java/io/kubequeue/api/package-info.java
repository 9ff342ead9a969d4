/**
 * The read-only HTTP API (JSON under {@code /api/v1}, OpenAPI at {@code /q/openapi}): answers from the
 * in-memory scheduler only; its only API-server calls are the caller's reviews ({@link io.kubequeue.api.ReadApiAccess})
 * and, on a follower, reading where the leader is ({@link io.kubequeue.api.ReadApiForwarding} forwards every call
 * to the leader, so each replica gives the leader's answer). May read the scheduler; writes nothing.
 */
package io.kubequeue.api;
