package io.kubequeue.scheduler.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

/**
 * A job's key is kept by every map that knows the job, and a map keeps the first key put for it: the one built from
 * start-up's read of the job, whose strings no later read shares. Keys hold their namespace and name interned, so
 * keys built from different reads (and the informer's cached copy, docs/architecture.md "Informer caches") share one
 * instance of each (issue 27: a namespace copy and two name copies per pending job, before).
 */
class JobKeyTest {

    private static String parsed(String s) {
        return new String(s.toCharArray()); // as a JSON parse makes it: a new instance
    }

    @Test
    void keysOfTwoReadsShareTheirStrings() {
        JobKey first = new JobKey("Job", parsed("team-a"), parsed("train-0001"));
        JobKey second = new JobKey(parsed("Job"), parsed("team-a"), parsed("train-0001"));
        assertEquals(first, second);
        assertSame(first.namespace(), second.namespace());
        assertSame(first.name(), second.name());
        assertSame(first.kind(), second.kind());
        Map<JobKey, Integer> map = new HashMap<>();
        map.put(first, 1);
        assertEquals(1, map.get(second));
    }
}
