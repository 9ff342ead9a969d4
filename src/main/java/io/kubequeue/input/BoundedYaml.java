package io.kubequeue.input;

import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.api.lowlevel.Parse;
import org.snakeyaml.engine.v2.events.Event;
import org.snakeyaml.engine.v2.events.ScalarEvent;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;

/**
 * Reads a flat YAML (or JSON) map from an annotation a tenant writes, e.g. a Workflow's
 * {@code kube-queue/min-resources} ({@code cpu: 5}) or the tree's {@code kube-queue/admission-timeouts}, with a
 * bounded cost (docs/security.md, "Hostile input: the bounds"). The parser is snakeyaml-engine's event parser, the one
 * behind fabric8's YAML reading, used one event at a time so that nothing is built before it is checked:
 *
 * <ul>
 *   <li>the text has at most {@code maxLength} characters and the map at most {@code maxEntries} entries;</li>
 *   <li>one document; keys are scalars; a value is a scalar, kept as written ({@code 1e999999999} stays that text,
 *       where fabric8's resolution made it the double Infinity), or a collection, which is reported as
 *       {@link #COLLECTION} and never read beyond {@value #MAX_DEPTH} levels;</li>
 *   <li>no aliases: without them a document cannot expand ("billion laughs"); a flat map has no use for them.</li>
 * </ul>
 * The cost is one pass over at most {@code maxLength} characters.
 */
public final class BoundedYaml {

    /** Levels read: the map, and a collection as one of its values (refused as a value, never read). */
    public static final int MAX_DEPTH = 2;

    /** Stands for a value that is a collection, not a scalar (the caller says what it wanted instead). */
    public static final String COLLECTION = "\u0000collection";

    private BoundedYaml() {
    }

    /**
     * @param text       the annotation's value
     * @param maxLength  the most characters read
     * @param maxEntries the most entries read
     * @return key → the value's text as written ({@link #COLLECTION} for a collection, null for a plain
     *         {@code null}, {@code ~} or nothing), in the text's order
     * @throws IllegalArgumentException saying which bound the text breaks, or that it is not a map
     */
    public static Map<String, String> flatMap(String text, int maxLength, int maxEntries) {
        if (text.length() > maxLength) {
            throw new IllegalArgumentException(text.length() + " characters, more than the " + maxLength + " read");
        }
        LoadSettings settings = LoadSettings.builder().setCodePointLimit(maxLength).setMaxAliasesForCollections(0)
                .setUseMarks(false).build();
        Map<String, String> entries = new LinkedHashMap<>();
        try {
            Iterator<Event> events = new Parse(settings).parseString(text).iterator();
            expect(events, Event.ID.StreamStart);
            Event first = next(events);
            if (first.getEventId() == Event.ID.StreamEnd) {
                throw new IllegalArgumentException("empty");
            }
            if (first.getEventId() != Event.ID.DocumentStart) {
                throw new IllegalArgumentException("not a YAML document");
            }
            Event top = next(events);
            if (top.getEventId() != Event.ID.MappingStart) {
                throw new IllegalArgumentException("not a map");
            }
            while (true) {
                Event key = next(events);
                if (key.getEventId() == Event.ID.MappingEnd) {
                    break;
                }
                if (!(key instanceof ScalarEvent keyScalar)) {
                    throw new IllegalArgumentException(key.getEventId() == Event.ID.Alias
                            ? "aliases are not read" : "a key must be a plain name");
                }
                String value = value(events);
                if (entries.containsKey(keyScalar.getValue())) {
                    throw new IllegalArgumentException("key " + keyScalar.getValue() + " appears twice");
                }
                if (entries.size() == maxEntries) {
                    throw new IllegalArgumentException("more than " + maxEntries + " entries");
                }
                entries.put(keyScalar.getValue(), value);
            }
            expect(events, Event.ID.DocumentEnd);
            if (next(events).getEventId() != Event.ID.StreamEnd) {
                throw new IllegalArgumentException("more than one YAML document");
            }
        } catch (YamlEngineException e) {
            throw new IllegalArgumentException("not YAML or JSON: " + firstLine(e.getMessage()));
        } catch (IllegalArgumentException e) {
            throw e; // ours: which bound the text breaks
        } catch (RuntimeException e) {
            // snakeyaml-engine itself fails on some texts (its StreamReader reads past its buffer, found by fuzzing:
            // an IndexOutOfBoundsException); still the text's fault, told at the object, never the watch's
            throw new IllegalArgumentException("not YAML or JSON: the YAML parser cannot read it ("
                    + e.getClass().getSimpleName() + ")");
        }
        return Collections.unmodifiableMap(entries);
    }

    /** One value: a scalar's text, or {@link #COLLECTION} once the collection has closed within the depth. */
    private static String value(Iterator<Event> events) {
        Event value = next(events);
        switch (value.getEventId()) {
            case Scalar -> {
                ScalarEvent scalar = (ScalarEvent) value;
                String text = scalar.getValue();
                return scalar.isPlain() && (text.isEmpty() || text.equals("null") || text.equals("~")) ? null : text;
            }
            case Alias -> throw new IllegalArgumentException("aliases are not read");
            case MappingStart, SequenceStart -> {
                Event inner;
                while ((inner = next(events)).getEventId() != Event.ID.MappingEnd
                        && inner.getEventId() != Event.ID.SequenceEnd) {
                    if (inner.getEventId() == Event.ID.MappingStart || inner.getEventId() == Event.ID.SequenceStart) {
                        throw new IllegalArgumentException("nested more than " + MAX_DEPTH + " levels deep");
                    }
                    if (inner.getEventId() == Event.ID.Alias) {
                        throw new IllegalArgumentException("aliases are not read");
                    }
                }
                return COLLECTION;
            }
            default -> throw new IllegalArgumentException("not a map");
        }
    }

    private static void expect(Iterator<Event> events, Event.ID id) {
        Event event = next(events);
        if (event.getEventId() != id) {
            throw new IllegalArgumentException(id == Event.ID.DocumentEnd ? "more than one value" : "not a map");
        }
    }

    private static Event next(Iterator<Event> events) {
        Event event = events.next();
        while (event.getEventId() == Event.ID.Comment) {
            event = events.next();
        }
        return event;
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "unreadable";
        }
        String line = message.strip().lines().findFirst().orElse("unreadable");
        return line.length() > 200 ? line.substring(0, 200) + "..." : line;
    }
}
