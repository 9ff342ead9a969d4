package io.kubequeue.input;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A job that cannot be queued as written: the message names the field and the value, so the Warning event
 * tells the user what to fix. The job stays suspended.
 *
 * <p>The message is bounded whatever the job holds (docs/security.md, "Hostile input: the bounds"): the field path
 * and the value are each cut to {@value #SHOWN} characters, and a JSON object or list is named by its size, never
 * written out (it may be 10,000 levels deep).
 */
public class InvalidJobException extends RuntimeException {

    /** The most characters of the field path, and of the value, that the message shows. */
    public static final int SHOWN = 200;

    /**
     * @param field  the field path, e.g. {@code spec.tfReplicaSpecs.Worker.replicas}
     * @param value  the offending value as written
     * @param reason why it is refused
     */
    public InvalidJobException(String field, Object value, String reason) {
        super(cut(field) + ": " + reason + " (value: " + shown(value) + ")");
    }

    /**
     * The most fields or items of a JSON collection a message counts; beyond, "more than" this. A cache's copy of a job
     * keeps an unread collection at no more than one over this size, and its messages read the same.
     */
    public static final int SHOWN_SIZE = 1000;

    /**
     * The value as the message shows it: a JSON collection by its size (up to {@value #SHOWN_SIZE}, else "more than"),
     * anything else cut to {@value #SHOWN}.
     */
    public static String shown(Object value) {
        if (value instanceof JsonNode node && node.isContainerNode()) {
            String size = node.size() > SHOWN_SIZE ? "more than " + SHOWN_SIZE : String.valueOf(node.size());
            return node.isObject() ? "an object of " + size + " fields" : "a list of " + size + " items";
        }
        return cut(String.valueOf(value));
    }

    private static String cut(String text) {
        return text.length() <= SHOWN ? text : text.substring(0, SHOWN) + "... (" + text.length() + " characters)";
    }
}
