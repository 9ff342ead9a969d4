package io.kubequeue.job.declared;

import java.util.ArrayDeque;
import java.util.BitSet;
import java.util.Collections;
import java.util.Deque;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kubequeue.input.InvalidJobException;
import io.kubequeue.job.FieldPath;
import io.kubequeue.job.PodSets;
import io.kubequeue.job.Pruning;

/**
 * What a declared kind's reads touch in one job (told by {@link FieldPath} and {@link PodSets#read} as they walk it),
 * and the copy of the job that keeps that and nothing else ({@link #copy}): the informer cache's copy
 * ({@link DeclaredJobKind#pruned}). Every read of the copy takes the same steps as on the job and finds the same
 * there, so it gives the same result or the same exception.
 *
 * <p>Kept: each field and list item a read steps to, in the job's order and at the same list index (an item not
 * read in between is a null, which every read skips); at a field read as a value, a scalar as it is and a list or
 * object at its size (its fields' names, each null; its items, each null: a message names it by its size); a pod
 * template as {@link Pruning#podTemplate} keeps it, a {@code resources} as {@link Pruning#resourceRequirements} does;
 * a container reached and not read further, empty. A container that is both replaced (a template) and read another
 * way (another pod set's items in it) is kept whole: only a strange declaration, or a job whose path field names a
 * template where its pod sets are, does that.
 *
 * <p>Linear in the job's size: each read walks a field at most once per path of the declaration (a bounded number),
 * and the copy is built without recursion (a job may be 10,000 levels deep). Not thread-safe: one per copy.
 */
final class KeptReads implements PodSets.Reads {

    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    private final KubernetesSerialization serialization;
    /** Per object reached: the fields read of it. */
    private final Map<JsonNode, Set<String>> fields = new IdentityHashMap<>();
    /** Per list reached: the items read of it. */
    private final Map<JsonNode, BitSet> items = new IdentityHashMap<>();
    /** Containers read as values: kept at their size. */
    private final Set<JsonNode> sized = Collections.newSetFromMap(new IdentityHashMap<>());
    /** Containers kept as what a function of them gives (a pruned template), by the function that gave it. */
    private final Map<JsonNode, Map.Entry<Object, JsonNode>> replaced = new IdentityHashMap<>();
    /** Containers kept whole: replaced twice differently, or replaced and read another way too. */
    private final Set<JsonNode> whole = Collections.newSetFromMap(new IdentityHashMap<>());

    KeptReads(KubernetesSerialization serialization) {
        this.serialization = serialization;
    }

    @Override
    public void field(JsonNode from, String name) {
        fields.computeIfAbsent(from, f -> new HashSet<>(4)).add(name);
    }

    @Override
    public void item(JsonNode from, int index) {
        items.computeIfAbsent(from, f -> new BitSet()).set(index);
    }

    @Override
    public void value(JsonNode node) {
        if (node.isContainerNode()) {
            sized.add(node);
        }
    }

    @Override
    public void template(JsonNode node) {
        replace(node, "template", t -> Pruning.podTemplate(t, serialization));
    }

    @Override
    public void resources(JsonNode node) {
        replace(node, "resources", r -> Pruning.resourceRequirements(r, serialization));
    }

    /**
     * {@code node} (reached by steps told) is kept as {@code by} gives it, unless read another way too.
     *
     * @param how names {@code by}: a node replaced twice the same way is replaced once
     */
    void replace(JsonNode node, Object how, Function<JsonNode, JsonNode> by) {
        if (!node.isContainerNode()) {
            return; // a scalar is kept as it is
        }
        Map.Entry<Object, JsonNode> known = replaced.get(node);
        if (known == null) {
            replaced.put(node, Map.entry(how, by.apply(node)));
        } else if (!known.getKey().equals(how)) {
            whole.add(node);
        }
    }

    /**
     * Reads the single field {@code path} of {@code from}, keeping it (and the steps to it) only if {@code read}
     * accepts it: a field that reads as absent (a hold field that is not a boolean) need not be kept.
     *
     * @return the field, or null
     */
    JsonNode single(FieldPath path, JsonNode from, Predicate<JsonNode> read) {
        JsonNode node = path.get(from);
        if (node != null && read.test(node)) {
            path.get(from, this); // again, told of its steps: one field, at most 32 of them
        }
        return node;
    }

    /** The copy of {@code root} (the job's {@code spec} and {@code status} as one object) that keeps what was read. */
    ObjectNode copy(ObjectNode root) {
        ObjectNode copy = JSON.objectNode();
        Deque<JsonNode[]> todo = new ArrayDeque<>();
        todo.push(new JsonNode[] {root, copy});
        while (!todo.isEmpty()) {
            JsonNode[] next = todo.pop();
            JsonNode from = next[0];
            boolean all = sized.contains(from);
            if (from instanceof ObjectNode object) {
                Set<String> read = fields.getOrDefault(from, Set.of());
                int nulls = 0; // an unread collection's size is kept up to what a message counts (InvalidJobException)
                for (Iterator<Map.Entry<String, JsonNode>> it = object.fields(); it.hasNext();) {
                    Map.Entry<String, JsonNode> field = it.next();
                    if (read.contains(field.getKey())) {
                        ((ObjectNode) next[1]).set(field.getKey(), kept(field.getValue(), todo));
                    } else if (all && nulls++ <= InvalidJobException.SHOWN_SIZE) {
                        ((ObjectNode) next[1]).set(field.getKey(), JSON.nullNode());
                    }
                }
            } else if (from instanceof ArrayNode array) {
                BitSet read = items.getOrDefault(from, new BitSet());
                int size = all ? Math.min(array.size(), Math.max(read.length(), InvalidJobException.SHOWN_SIZE + 1))
                        : Math.min(array.size(), read.length());
                for (int i = 0; i < size; i++) {
                    ((ArrayNode) next[1]).add(read.get(i) ? kept(array.get(i), todo) : JSON.nullNode());
                }
            }
        }
        return copy;
    }

    /** What stands in the copy for {@code node}: it, its replacement, or a container to fill (queued). */
    private JsonNode kept(JsonNode node, Deque<JsonNode[]> todo) {
        if (!node.isContainerNode()) {
            return node; // immutable
        }
        Map.Entry<Object, JsonNode> replacement = replaced.get(node);
        if (replacement != null) {
            boolean readOtherwise = whole.contains(node) || sized.contains(node) || fields.containsKey(node)
                    || items.containsKey(node);
            return readOtherwise || replacement.getValue() == node ? DeclaredJobKind.copy(node)
                    : replacement.getValue();
        }
        JsonNode copy = node.isObject() ? JSON.objectNode() : JSON.arrayNode();
        todo.push(new JsonNode[] {node, copy});
        return copy;
    }
}
