package io.ailb.sim.bounds;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class PrefixLruTest {
    @Test
    void matchCountsLeadingBlocksOnly() {
        PrefixLru lru = PrefixLru.unbounded();
        lru.insert(List.of(1L, 2L, 3L), 16, 0);
        assertEquals(3, lru.match(List.of(1L, 2L, 3L, 4L), 0));
        assertEquals(2, lru.match(List.of(1L, 2L, 9L, 3L), 0));
        assertEquals(0, lru.match(List.of(7L, 1L), 0));
    }

    @Test
    void evictsLeastRecentlyUsedLeavesNeverAnAncestorBeforeItsDescendants() {
        PrefixLru lru = new PrefixLru(5, false, 0);
        lru.insert(List.of(1L, 2L, 3L), 16, 0); // chain A
        lru.insert(List.of(10L, 11L), 16, 1); // chain B: full (5)
        lru.insert(List.of(1L), 16, 2); // touch A's root only
        lru.insert(List.of(20L), 16, 3); // one must go: the LRU leaf is A's tail (3), not A's root
        assertEquals(5, lru.size());
        assertTrue(lru.contains(1, 3));
        assertTrue(lru.contains(2, 3));
        assertFalse(lru.contains(3, 3));
        assertEquals(2, lru.match(List.of(1L, 2L, 3L), 3));
        // recency now 20, 1, 10, 11, 2: two more go, the leaves 2 (A's new tail) and 11 (B's tail)
        lru.insert(List.of(21L, 22L), 16, 4);
        assertFalse(lru.contains(2, 4));
        assertFalse(lru.contains(11, 4));
        assertTrue(lru.contains(1, 4));
        assertTrue(lru.contains(10, 4));
        assertEquals(3, lru.evictions());
    }

    @Test
    void tokenWeightedCapacity() {
        PrefixLru lru = new PrefixLru(1024, true, 0);
        lru.insert(List.of(1L, 2L), 512, 0);
        assertEquals(1024, lru.size());
        lru.insert(List.of(3L), 512, 0);
        assertEquals(1024, lru.size());
        assertEquals(2, lru.entries());
        assertThrows(IllegalArgumentException.class, () -> new PrefixLru(0, true, 0));
    }

    @Test
    void entriesExpireAfterTheirTimeToLiveUnlessTouched() {
        PrefixLru lru = new PrefixLru(100, false, 1000);
        lru.insert(List.of(1L, 2L), 16, 0);
        assertEquals(2, lru.match(List.of(1L, 2L), 1000));
        assertEquals(0, lru.match(List.of(1L, 2L), 1001));
        lru.insert(List.of(1L), 16, 900);
        assertEquals(1, lru.match(List.of(1L, 2L), 1500));
    }
}
