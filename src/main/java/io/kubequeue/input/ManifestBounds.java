package io.kubequeue.input;

import java.io.IOException;
import java.util.Iterator;

import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.api.lowlevel.Parse;
import org.snakeyaml.engine.v2.events.Event;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;

/**
 * Checks a manifest sent to the read API's dry run before fabric8 reads it (docs/security.md, "Hostile input: the
 * bounds"): fabric8 builds a YAML manifest into maps recursively and converts them into typed objects recursively,
 * with no bound on depth, so a deep enough one overflows the request thread's stack. The check walks the text one
 * token at a time (Jackson's streaming parser for JSON, snakeyaml-engine's event parser for YAML), so it costs one
 * pass and builds nothing:
 * <ul>
 *   <li>at most {@value #MAX_LENGTH} characters: etcd stores no object larger than 1.5 MiB, so no job can be;</li>
 *   <li>at most {@value #MAX_DEPTH} levels of nesting: a job manifest (a list, its job, a pod template, affinity
 *       terms) is a few dozen;</li>
 *   <li>YAML: no aliases (no expansion), at most {@value #MAX_DOCUMENTS} documents.</li>
 * </ul>
 */
public final class ManifestBounds {

    /** The longest manifest read, in characters. */
    public static final int MAX_LENGTH = 1536 * 1024;
    /** The deepest nesting read. */
    public static final int MAX_DEPTH = 2 * JsonBounds.MAX_TEMPLATE_DEPTH;
    /** The most YAML documents read. */
    public static final int MAX_DOCUMENTS = 100;

    private static final JsonFactory JSON = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH)
                    .maxStringLength(MAX_LENGTH).maxNameLength(MAX_LENGTH).build())
            .build();

    private ManifestBounds() {
    }

    /**
     * @param manifest the text as sent
     * @return how many tokens (JSON) or events (YAML) were read: at most one per character
     * @throws IllegalArgumentException naming the bound the manifest breaks, or why it does not parse
     */
    public static long check(String manifest) {
        if (manifest.length() > MAX_LENGTH) {
            throw new IllegalArgumentException(manifest.length() + " characters, more than the " + MAX_LENGTH
                    + " read");
        }
        String start = manifest.stripLeading();
        return start.startsWith("{") || start.startsWith("[") ? json(manifest) : yaml(manifest);
    }

    private static long json(String manifest) {
        long tokens = 0;
        try (JsonParser parser = JSON.createParser(manifest)) {
            for (JsonToken token = parser.nextToken(); token != null; token = parser.nextToken()) {
                tokens++;
            }
        } catch (IOException e) {
            throw new IllegalArgumentException(firstLine(e.getMessage()));
        }
        return tokens;
    }

    private static long yaml(String manifest) {
        LoadSettings settings = LoadSettings.builder().setCodePointLimit(MAX_LENGTH).setMaxAliasesForCollections(0)
                .setUseMarks(false).build();
        long events = 0;
        int depth = 0;
        int documents = 0;
        try {
            Iterator<Event> it = new Parse(settings).parseString(manifest).iterator();
            while (it.hasNext()) {
                Event event = it.next();
                events++;
                switch (event.getEventId()) {
                    case MappingStart, SequenceStart -> {
                        if (++depth > MAX_DEPTH) {
                            throw new IllegalArgumentException("nested more than " + MAX_DEPTH + " levels deep");
                        }
                    }
                    case MappingEnd, SequenceEnd -> depth--;
                    case Alias -> throw new IllegalArgumentException("YAML aliases are not read");
                    case DocumentStart -> {
                        if (++documents > MAX_DOCUMENTS) {
                            throw new IllegalArgumentException("more than " + MAX_DOCUMENTS + " documents");
                        }
                    }
                    default -> {
                    }
                }
            }
        } catch (YamlEngineException e) {
            throw new IllegalArgumentException(firstLine(e.getMessage()));
        } catch (IllegalArgumentException e) {
            throw e; // ours: which bound the manifest breaks
        } catch (RuntimeException e) {
            // snakeyaml-engine itself fails on some texts (see BoundedYaml): the manifest's fault, said as such
            throw new IllegalArgumentException("the YAML parser cannot read it (" + e.getClass().getSimpleName() + ")");
        }
        return events;
    }

    private static String firstLine(String message) {
        String line = message == null ? "unreadable" : message.strip().lines().findFirst().orElse("unreadable");
        return line.length() > 200 ? line.substring(0, 200) + "..." : line;
    }
}
