package io.kubequeue.job.declared;

/**
 * A {@link QueuedKind} that cannot be used as written: the message names the field (e.g.
 * {@code spec.podSets[0].counts[1].field}) and why. Its declaration gets condition {@code Valid=False} with this
 * message and one Warning event; no job of the kind is queued until it is fixed.
 */
public class InvalidDeclarationException extends RuntimeException {

    private final String field;

    /**
     * @param field  the declaration's field, from its root
     * @param reason why it is refused
     */
    public InvalidDeclarationException(String field, String reason) {
        super(field + ": " + reason);
        this.field = field;
    }

    /** The field refused. */
    public String field() {
        return field;
    }
}
