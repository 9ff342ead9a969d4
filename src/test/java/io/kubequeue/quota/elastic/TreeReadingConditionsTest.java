package io.kubequeue.quota.elastic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.Condition;

/** Issue 29, item 3: the conditions each reading of a tree gives it, and when their transition time moves. */
class TreeReadingConditionsTest {

    private static final Instant NOW = Instant.parse("2026-12-04T10:00:00.250Z");
    private static final ElasticQuotaTreeSource.TreeRef TREE = new ElasticQuotaTreeSource.TreeRef("kube-system", "t");

    @Test
    void aValidTreeInForceIsAcceptedAndInForceAtItsGeneration() {
        List<Condition> conditions = QuotaTreeStatusWriter.conditions(
                new ElasticQuotaTreeSource.TreeReading(TREE, 3L, true, null, true, 3L, null, List.of()), null, NOW);
        assertEquals(List.of("Accepted True Valid", "InForce True InForce"), summary(conditions));
        assertEquals("the quota groups of generation 3 are in force", conditions.get(1).getMessage());
        assertEquals("2026-12-04T10:00:00Z", conditions.get(0).getLastTransitionTime(), "to the second, as metav1.Time");
        assertEquals(3L, conditions.get(0).getObservedGeneration());
    }

    @Test
    void aRefusedEditKeepsTheEarlierGenerationInForceAndItsTransitionTime() {
        List<Condition> before = QuotaTreeStatusWriter.conditions(
                new ElasticQuotaTreeSource.TreeReading(TREE, 3L, true, null, true, 3L, null, List.of()),
                null, Instant.parse("2026-12-01T00:00:00Z"));
        List<Condition> conditions = QuotaTreeStatusWriter.conditions(new ElasticQuotaTreeSource.TreeReading(TREE, 4L,
                false, "spec.root (root): min cpu 8 is above max 4; the last valid tree stays in force", true, 3L, null,
                before), null, NOW);
        assertEquals(List.of("Accepted False InvalidSpec", "InForce True InForce"), summary(conditions));
        assertEquals("generation 4 refused: spec.root (root): min cpu 8 is above max 4; the last valid tree stays in force",
                conditions.get(0).getMessage());
        assertEquals("2026-12-04T10:00:00Z", conditions.get(0).getLastTransitionTime(), "Accepted changed");
        assertEquals("2026-12-01T00:00:00Z", conditions.get(1).getLastTransitionTime(), "InForce did not");
        assertEquals(4L, conditions.get(1).getObservedGeneration());
    }

    @Test
    void aFirstTreeThatIsInvalidIsNotInForce() {
        List<Condition> conditions = QuotaTreeStatusWriter.conditions(new ElasticQuotaTreeSource.TreeReading(TREE, 1L,
                false, "spec.root is missing; no valid tree yet: every job is held", false, null, null, List.of()), null, NOW);
        assertEquals(List.of("Accepted False InvalidSpec", "InForce False NoValidGeneration"), summary(conditions));
    }

    @Test
    void aYoungerTreeIsNotReadAndSaysWhichTreeIs() {
        List<Condition> conditions = QuotaTreeStatusWriter.conditions(new ElasticQuotaTreeSource.TreeReading(
                new ElasticQuotaTreeSource.TreeRef("kube-system", "second"), 1L, null, null, false, null, "first",
                List.of()), null, NOW);
        assertEquals(List.of("Accepted Unknown NotTheOldest", "InForce False NotTheOldest"), summary(conditions));
        assertTrue(conditions.get(0).getMessage().contains("only the oldest ElasticQuotaTree of namespace kube-system is,"
                + " first"), conditions.get(0).getMessage());
    }

    /**
     * A server whose CRD predates the conditions drops them: the tree read back holds none, and the same verdict must
     * still be the same patch (it was written anew every 5 s), so the times come from what was written.
     */
    @Test
    void theSameVerdictIsTheSameConditionsWhenTheServerDroppedThem() {
        ElasticQuotaTreeSource.TreeReading reading = new ElasticQuotaTreeSource.TreeReading(TREE, 3L, true, null, true,
                3L, null, List.of());
        List<Condition> written = QuotaTreeStatusWriter.conditions(reading, null, Instant.parse("2026-12-01T00:00:00Z"));
        assertEquals(written, QuotaTreeStatusWriter.conditions(reading, written, NOW));
    }

    @Test
    void aServerThatSetsNoGenerationGetsNoNullInTheMessages() {
        List<Condition> conditions = QuotaTreeStatusWriter.conditions(
                new ElasticQuotaTreeSource.TreeReading(TREE, null, true, null, true, null, null, List.of()), null, NOW);
        assertEquals("the spec last read is a valid tree", conditions.get(0).getMessage());
        assertEquals("its quota groups are in force", conditions.get(1).getMessage());
    }

    private static List<String> summary(List<Condition> conditions) {
        return conditions.stream().map(c -> c.getType() + " " + c.getStatus() + " " + c.getReason()).toList();
    }
}
