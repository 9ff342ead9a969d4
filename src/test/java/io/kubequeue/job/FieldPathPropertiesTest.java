package io.kubequeue.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.kubequeue.input.InvalidJobException;

/**
 * {@link FieldPath} against whatever a declaration's author writes and whatever a tenant's job holds: any string
 * either parses or is refused with an IllegalArgumentException (never another exception), and a parsed path's
 * {@code select} and {@code get} on any small JSON throw nothing but InvalidJobException.
 */
class FieldPathPropertiesTest {

    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
    private static final List<String> NAMES = List.of("a", "b", "spec", "items", "0", "$x", "a-b");

    @Property(tries = 2000)
    void anyStringParsesOrIsRefusedWithIllegalArgument(@ForAll("texts") String text) {
        FieldPath path;
        try {
            path = FieldPath.parse(text);
        } catch (IllegalArgumentException e) {
            assertNotNull(e.getMessage());
            assertTrue(e.getMessage().length() < 2_000, "a bounded message");
            return;
        }
        assertEquals(text, path.toString());
        if (path.single()) {
            assertEquals(text, String.join(".", path.names()));
        }
    }

    @Provide
    Arbitrary<String> texts() {
        Arbitrary<String> segment = Arbitraries.oneOf(Arbitraries.of(NAMES), Arbitraries.of("*", "[*]", "a[*]",
                "a[0]", "", " ", "a b", "é", "a[*][*]", "[", "]", "\u0000", "a*"));
        return Arbitraries.oneOf(
                Arbitraries.strings().ofMaxLength(40),
                Arbitraries.strings().withChars("ab.[]*$-_ ").ofMaxLength(60),
                segment.list().ofMaxSize(40).map(parts -> String.join(".", parts)),
                Arbitraries.integers().between(500, 600).map(n -> "a".repeat(n)),
                Arbitraries.of("", ".", "..", "a.", ".a", "a..b"));
    }

    @Property(tries = 2000)
    void selectAndGetOnAnyJsonThrowOnlyInvalidJob(@ForAll("paths") String text, @ForAll("trees") JsonNode tree) {
        FieldPath path = FieldPath.parse(text);
        try {
            List<FieldPath.Match> matches = path.select(tree, "");
            assertTrue(matches.size() <= FieldPath.MAX_MATCHES);
            for (FieldPath.Match match : matches) {
                assertNotNull(match.node());
                assertTrue(!match.node().isNull(), "a null field reaches nothing");
            }
        } catch (InvalidJobException e) {
            assertTrue(e.getMessage().length() < 2_000, "a bounded message");
        }
        if (path.single()) {
            JsonNode got = path.get(tree);
            assertTrue(got == null || !got.isNull());
        }
    }

    @Provide
    Arbitrary<String> paths() {
        Arbitrary<String> segment = Arbitraries.oneOf(Arbitraries.of(NAMES), Arbitraries.of(NAMES).map(n -> n + "[*]"),
                Arbitraries.just("*"));
        return segment.list().ofMinSize(1).ofMaxSize(6).map(parts -> String.join(".", parts));
    }

    @Provide
    Arbitrary<JsonNode> trees() {
        return Arbitraries.recursive(this::scalar, inner -> Arbitraries.oneOf(inner, object(inner), array(inner)), 0, 4);
    }

    private Arbitrary<JsonNode> scalar() {
        return Arbitraries.oneOf(
                Arbitraries.integers().map(i -> (JsonNode) JSON.numberNode(i)),
                Arbitraries.strings().ofMaxLength(5).map(s -> (JsonNode) JSON.textNode(s)),
                Arbitraries.of(JSON.nullNode(), JSON.booleanNode(true), JSON.numberNode(2.5)));
    }

    private static Arbitrary<JsonNode> object(Arbitrary<JsonNode> values) {
        return Arbitraries.maps(Arbitraries.of(NAMES), values).ofMaxSize(4).map(fields -> {
            ObjectNode node = JSON.objectNode();
            fields.forEach(node::set);
            return node;
        });
    }

    private static Arbitrary<JsonNode> array(Arbitrary<JsonNode> items) {
        return items.list().ofMaxSize(4).map(list -> {
            ArrayNode node = JSON.arrayNode();
            list.forEach(node::add);
            return node;
        });
    }
}
