package io.kubequeue.job;

/**
 * A job that cannot be queued as written: the message names the field and the value, so the Warning event
 * tells the user what to fix. The job stays suspended.
 */
public class InvalidJobException extends RuntimeException {

    /**
     * @param field  the field path, e.g. {@code spec.tfReplicaSpecs.Worker.replicas}
     * @param value  the offending value as written
     * @param reason why it is refused
     */
    public InvalidJobException(String field, Object value, String reason) {
        super(field + ": " + reason + " (value: " + value + ")");
    }
}
