/**
 * The aggregated visibility API, {@code visibility.kube-queue.io/v1alpha1} (docs/visibility.md): its resources and
 * tables ({@link io.kubequeue.visibility.VisibilityApi}), who calls it as the API server's front proxy names them
 * ({@link io.kubequeue.visibility.FrontProxy}) and what they may read ({@link io.kubequeue.visibility.VisibilityAccess}).
 * One call in, one JSON answer out: no transport here (that is {@code serving}'s). Reads the scheduler's views; asks
 * the API server SubjectAccessReviews; writes nothing.
 */
package io.kubequeue.visibility;
