package io.kubequeue.testing;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.kubequeue.events.EventRecorder;

/** An {@link EventRecorder} that writes nothing and keeps every event asked for, for plain unit tests. */
public final class RecordingEvents extends EventRecorder {

    /**
     * One event as asked for.
     *
     * @param name    the object's name
     * @param type    Normal or Warning
     * @param reason  e.g. Queued
     * @param message the message
     */
    public record Event(String name, String type, String reason, String message) {
    }

    private final List<Event> events = new CopyOnWriteArrayList<>();
    private volatile java.util.function.IntSupplier admissionsWaiting = () -> 0;

    public RecordingEvents() {
        super(null, null);
    }

    @Override
    public void normal(HasMetadata target, String reason, String message) {
        normal(refOf(target), reason, message);
    }

    @Override
    public void normal(ObjectReference target, String reason, String message) {
        events.add(new Event(target.getName(), "Normal", reason, message));
    }

    @Override
    public void warning(HasMetadata target, String reason, String message) {
        warning(refOf(target), reason, message);
    }

    @Override
    public void warning(ObjectReference target, String reason, String message) {
        events.add(new Event(target.getName(), "Warning", reason, message));
    }

    @Override
    public void sendAfter(java.util.function.IntSupplier admissionsWaiting) {
        this.admissionsWaiting = admissionsWaiting;
    }

    /** What the events would wait behind now: the admissions waiting, as handed to {@link #sendAfter}. */
    public int admissionsWaiting() {
        return admissionsWaiting.getAsInt();
    }

    /** The events so far, oldest first. */
    public List<Event> events() {
        return List.copyOf(events);
    }

    /** The events of one reason so far, oldest first. */
    public List<Event> withReason(String reason) {
        return events.stream().filter(e -> e.reason().equals(reason)).toList();
    }
}
