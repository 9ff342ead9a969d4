package io.kubequeue.collections;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class BoundedMapsTest {

    @Test
    void keepingNewestDropsTheOldestInsertedBeyondCapacity() {
        Map<String, Integer> map = BoundedMaps.keepingNewest(2);
        map.put("a", 1);
        map.put("b", 2);
        map.get("a"); // reading does not make it newer
        map.put("c", 3);
        assertEquals(List.of("b", "c"), List.copyOf(map.keySet()));
    }

    @Test
    void keepingRecentlyUsedDropsTheLeastRecentlyUsed() {
        Map<String, Integer> map = BoundedMaps.keepingRecentlyUsed(2);
        map.put("a", 1);
        map.put("b", 2);
        map.get("a");
        map.put("c", 3);
        assertEquals(List.of("a", "c"), List.copyOf(map.keySet()));
    }

    @Test
    void aCapacityBelowOneIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> BoundedMaps.keepingNewest(0));
    }
}
