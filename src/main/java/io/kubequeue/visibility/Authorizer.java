package io.kubequeue.visibility;

/**
 * Decides whether a caller of the visibility API may do one thing ({@link VisibilityAccess} asks the API server).
 */
public interface Authorizer {

    /**
     * @return whether the API server allows it
     * @throws VisibilityAccess.Unanswered when it could not be asked (the caller gets 503)
     */
    boolean allows(VisibilityAccess.Question question);
}
