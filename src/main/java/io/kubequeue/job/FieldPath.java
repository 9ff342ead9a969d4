package io.kubequeue.job;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;

import io.kubequeue.input.InvalidJobException;

/**
 * A path to fields of a job, as a job kind's declaration writes it (docs/kinds.md, "Paths"): field names joined by
 * dots, where {@code name[*]} is every item of the list {@code name} and a segment {@code *} is every value of a map.
 * E.g. {@code spec.replicatedJobs[*]}, {@code spec.tfReplicaSpecs.*}, {@code template.spec.template}.
 *
 * <p>Bounded both ways, since a path is written by whoever declares a kind and a job by any tenant: a path has at
 * most {@value #MAX_SEGMENTS} segments and {@value #MAX_LENGTH} characters; one selection yields at most
 * {@value #MAX_MATCHES} fields and costs time linear in the fields it passes.
 */
public final class FieldPath {

    /** The most characters of a path. */
    public static final int MAX_LENGTH = 512;
    /** The most segments (field names) of a path. */
    public static final int MAX_SEGMENTS = 32;
    /** The most fields one selection yields: a job with more (a list of 100,000 replicated jobs) is refused. */
    public static final int MAX_MATCHES = 1_000;

    /** A field name: letters, digits, {@code _}, {@code -} and {@code $} (JSON field names of Kubernetes kinds). */
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_$-]{1,128}");

    private record Segment(String name, boolean everyItem, boolean everyValue) {
    }

    private final String text;
    private final List<Segment> segments;

    private FieldPath(String text, List<Segment> segments) {
        this.text = text;
        this.segments = segments;
    }

    /**
     * Reads a path.
     *
     * @param text e.g. {@code spec.replicatedJobs[*].replicas}
     * @throws IllegalArgumentException naming what is wrong: empty, too long, a segment that is not a field name
     */
    public static FieldPath parse(String text) {
        if (text == null || text.isEmpty()) {
            throw new IllegalArgumentException("a path is needed");
        }
        if (text.length() > MAX_LENGTH) {
            throw new IllegalArgumentException("a path has at most " + MAX_LENGTH + " characters, this has "
                    + text.length());
        }
        String[] parts = text.split("\\.", -1);
        if (parts.length > MAX_SEGMENTS) {
            throw new IllegalArgumentException("a path has at most " + MAX_SEGMENTS + " segments, this has "
                    + parts.length);
        }
        List<Segment> segments = new ArrayList<>(parts.length);
        for (String part : parts) {
            if (part.equals("*")) {
                segments.add(new Segment(null, false, true));
                continue;
            }
            boolean everyItem = part.endsWith("[*]");
            String name = everyItem ? part.substring(0, part.length() - 3) : part;
            if (!NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("'" + InvalidJobException.shown(part) + "' in path '"
                        + InvalidJobException.shown(text) + "' is not a field name (letters, digits, _ - $),"
                        + " name[*] (every list item) or * (every map value)");
            }
            segments.add(new Segment(name, everyItem, false));
        }
        return new FieldPath(text, List.copyOf(segments));
    }

    /** Whether the path names one field only: no {@code [*]} and no {@code *}. */
    public boolean single() {
        return segments.stream().noneMatch(s -> s.everyItem() || s.everyValue());
    }

    /** The field names, in order, of a {@link #single()} path. */
    public List<String> names() {
        if (!single()) {
            throw new IllegalStateException(text + " selects more than one field");
        }
        return segments.stream().map(Segment::name).toList();
    }

    /**
     * The path's steps, one per level it goes down: each field name, then {@code [*]} after a name that has it (every
     * item of that list), and {@code *} for every value of a map. E.g. {@code spec.jobs[*].replicas} is
     * {@code [spec, jobs, [*], replicas]}.
     */
    public List<String> steps() {
        List<String> steps = new ArrayList<>();
        for (Segment segment : segments) {
            if (segment.everyValue()) {
                steps.add("*");
                continue;
            }
            steps.add(segment.name());
            if (segment.everyItem()) {
                steps.add("[*]");
            }
        }
        return steps;
    }

    /**
     * A field the path reaches, and where: {@code at} names it for messages, e.g. {@code spec.jobs[2].replicas}; a map
     * key longer than {@value InvalidJobException#SHOWN} characters reached by {@code *} is cut there, so {@code at}
     * is bounded by the path, not by the job.
     */
    public record Match(JsonNode node, String at) {
    }

    /**
     * The fields the path reaches from {@code from}, in document order; a step into a field that is absent, null or
     * not the object (or list, for {@code [*]}) it must be reaches nothing there.
     *
     * @param from the node to start at (the job, or a field an enclosing path reached)
     * @param at   how {@code from} is named in messages; empty at the job's root
     * @throws InvalidJobException if more than {@value #MAX_MATCHES} fields are reached
     */
    public List<Match> select(JsonNode from, String at) {
        return select(from, at, null);
    }

    /**
     * As {@link #select(JsonNode, String)}, telling {@code trail} each step taken to a field that is there (not null).
     * When more than {@value #MAX_MATCHES} fields are reached, the steps to the first {@value #MAX_MATCHES} + 1 of
     * them have been told when the exception is thrown: enough of the job to throw the same again.
     *
     * @param trail told of each step; null: none
     */
    public List<Match> select(JsonNode from, String at, Trail trail) {
        List<Match> current = List.of(new Match(from, at));
        for (Segment segment : segments) {
            List<Match> next = new ArrayList<>();
            for (Match match : current) {
                step(match, segment, next, trail);
            }
            current = next;
        }
        return current;
    }

    /** The one field a {@link #single()} path reaches from {@code from}; null if absent or JSON null. */
    public JsonNode get(JsonNode from) {
        return get(from, null);
    }

    /**
     * As {@link #get(JsonNode)}, telling {@code trail} each step taken to a field that is there (not null).
     *
     * @param trail told of each step; null: none
     */
    public JsonNode get(JsonNode from, Trail trail) {
        JsonNode node = from;
        for (Segment segment : segments) {
            if (node == null || !node.isObject()) {
                return null;
            }
            JsonNode child = node.get(segment.name());
            if (trail != null && child != null && !child.isNull()) {
                trail.field(node, segment.name());
            }
            node = child;
        }
        return node == null || node.isNull() ? null : node;
    }

    /**
     * Told of the steps a read takes through a job ({@link #select(JsonNode, String, Trail)},
     * {@link #get(JsonNode, Trail)}): what the informer cache's copy of a declared kind's job keeps. Each step is
     * from a node that is the start of the read or was reached by a step told before.
     */
    public interface Trail {

        /** A step from the object {@code from} to its field {@code name}, which is there and not null. */
        void field(JsonNode from, String name);

        /** A step from the list {@code from} to its item {@code index}, which is not null. */
        void item(JsonNode from, int index);
    }

    private void step(Match match, Segment segment, List<Match> into, Trail trail) {
        JsonNode node = match.node();
        if (node == null || !node.isObject()) {
            return;
        }
        if (segment.everyValue()) {
            for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext();) {
                Map.Entry<String, JsonNode> field = it.next();
                if (trail != null && !field.getValue().isNull()) {
                    trail.field(node, field.getKey());
                }
                add(into, field.getValue(), join(match.at(), key(field.getKey())));
            }
            return;
        }
        JsonNode child = node.get(segment.name());
        if (trail != null && child != null && !child.isNull()) {
            trail.field(node, segment.name());
        }
        String at = join(match.at(), segment.name());
        if (!segment.everyItem()) {
            add(into, child, at);
        } else if (child != null && child.isArray()) {
            for (int i = 0; i < child.size(); i++) {
                if (trail != null && !child.get(i).isNull()) {
                    trail.item(child, i);
                }
                add(into, child.get(i), at + "[" + i + "]");
            }
        }
    }

    private void add(List<Match> into, JsonNode node, String at) {
        if (node == null || node.isNull()) {
            return;
        }
        if (into.size() == MAX_MATCHES) {
            throw new InvalidJobException(text, "more than " + MAX_MATCHES + " fields",
                    "kube-queue reads at most " + MAX_MATCHES + " fields of one path");
        }
        into.add(new Match(node, at));
    }

    private static String join(String at, String name) {
        return at.isEmpty() ? name : at + "." + name;
    }

    /**
     * A map key as a location names it: a tenant's key may be about 1 MB long, and every location under it (each
     * {@code [i]} of a list there) would copy it whole, so it is cut as a message cuts a value
     * ({@link InvalidJobException#shown}); a key of at most {@value InvalidJobException#SHOWN} characters is named
     * whole. A location is for messages only: templates are found again by identity, never by it.
     */
    private static String key(String key) {
        return InvalidJobException.shown(key);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof FieldPath path && path.text.equals(text);
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }

    /** The path as written. */
    @Override
    public String toString() {
        return text;
    }
}
