package io.kubequeue.scheduler.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;

import org.junit.jupiter.api.Test;

/** An explanation names a job only to a reader who may see it (docs/security.md, "Reasons per reader"). */
class ExplanationTest {

    private static final JobKey THEIRS = new JobKey("Job", "team-b", "etl");
    private static final JobKey MINE = new JobKey("TFJob", "team-a", "train");

    @Test
    void aJobTheReaderMayNotSeeIsToldAsItsGroupOnly() {
        Explanation why = Explanation.of("waits behind ").then(THEIRS, "root.shared").then("; tried next");
        assertEquals("waits behind a job in quota group root.shared; tried next",
                why.render(k -> k.namespace().equals("team-a")));
        assertEquals("waits behind Job team-b/etl; tried next", why.render(k -> true));
        assertEquals("waits behind Job team-b/etl; tried next", why.toString(), "the log names every job");
        assertEquals(List.of(THEIRS), why.jobsNamed());
    }

    @Test
    void severalJobsAreEachRenderedForTheReader() {
        Explanation victims = Explanation.jobs(List.of(THEIRS, MINE), List.of("root.b", "root.a"));
        assertEquals("a job in quota group root.b, TFJob team-a/train",
                victims.render(k -> k.namespace().equals("team-a")));
        assertEquals("a job in no quota group", Explanation.job(THEIRS, null).render(k -> false));
        assertThrows(IllegalArgumentException.class, () -> Explanation.jobs(List.of(THEIRS), List.of()));
    }

    @Test
    void explanationsThatReadTheSameToEveryReaderAreEqual() {
        assertEquals(Explanation.of("ab"), Explanation.of("a").then("b"));
        assertEquals(Explanation.of("a").then(THEIRS, "g"), Explanation.of("").then("a").then(Explanation.job(THEIRS, "g")));
        assertNotEquals(Explanation.of("Job team-b/etl"), Explanation.job(THEIRS, "g"),
                "a name written as text would reach every reader");
        assertEquals(Explanation.empty(), Explanation.of(null));
    }
}
