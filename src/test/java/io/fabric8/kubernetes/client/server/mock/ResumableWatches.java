package io.fabric8.kubernetes.client.server.mock;

import java.lang.reflect.Field;
import java.util.Set;
import java.util.function.BiConsumer;

import org.slf4j.LoggerFactory;

import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.crud.AttributeSet;
import io.fabric8.mockwebserver.http.MockResponse;

/**
 * The benchmark's way into fabric8's CRUD mock, whose watch listener is package-private: a watch whose first events
 * the caller chooses (those changed after a resourceVersion, as a real API server resumes a watch), then every change,
 * as fabric8's own. In this package only for that access; test code, never shipped.
 */
public final class ResumableWatches {

    private ResumableWatches() {
    }

    /**
     * A watch of the objects {@code attributes} select, registered with {@code dispatcher} so that it gets every later
     * change; when it opens, {@code initial} is called with a sender for the events it starts with.
     *
     * @throws IllegalStateException if this fabric8 version keeps its watches elsewhere
     */
    public static MockResponse watch(KubernetesCrudDispatcher dispatcher, Context context, AttributeSet attributes,
                                     BiConsumer<AttributeSet, BiConsumer<String, Watcher.Action>> initial) {
        Set<WatchEventsListener> listeners = listeners(dispatcher);
        WatchEventsListener listener = new WatchEventsListener(context, attributes, listeners,
                LoggerFactory.getLogger(ResumableWatches.class),
                opened -> initial.accept(attributes, opened::sendWebSocketResponse));
        listeners.add(listener);
        return new MockResponse().withWebSocketUpgrade(listener);
    }

    @SuppressWarnings("unchecked")
    private static Set<WatchEventsListener> listeners(KubernetesCrudDispatcher dispatcher) {
        try {
            Field field = KubernetesCrudDispatcher.class.getDeclaredField("watchEventListeners");
            field.setAccessible(true);
            return (Set<WatchEventsListener>) field.get(dispatcher);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("fabric8's CRUD mock keeps its watches elsewhere", e);
        }
    }
}
