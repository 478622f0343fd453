package io.ailb.sim.backend;

import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * vLLM-style automatic prefix cache: fixed-size blocks keyed by prefix-chained ids, a lookup matches the longest run
 * of leading ids present, blocks held by running sequences are pinned, unpinned blocks are evicted least recently
 * used first. Every block costs its full block size in tokens. Pinned blocks may exceed the capacity (the engine's
 * admission normally prevents it); nothing pinned is ever evicted.
 */
public final class PrefixCache {
    private static final class Entry {
        final long id;
        final int tokens;
        int pins;

        Entry(long id, int tokens) {
            this.id = id;
            this.tokens = tokens;
        }
    }

    private final long capacityTokens;
    private final Map<Long, Entry> entries = new HashMap<>();
    /** Unpinned entries, least recently used first. */
    private final LinkedHashMap<Long, Entry> lru = new LinkedHashMap<>();

    private long usedTokens;
    private long pinnedTokens;
    private long pinnedBlocks;
    private long evictions;

    public PrefixCache(long capacityTokens) {
        this.capacityTokens = capacityTokens;
    }

    /** How many leading ids of {@code ids} are cached. */
    public int match(List<Long> ids) {
        int n = 0;
        for (Long id : ids) {
            if (!entries.containsKey(id)) {
                break;
            }
            n++;
        }
        return n;
    }

    /** How many leading ids of {@code ids} are cached or in {@code soon} (blocks that will be cached by then). */
    public int match(List<Long> ids, Set<Long> soon) {
        int n = 0;
        for (Long id : ids) {
            if (!entries.containsKey(id) && !soon.contains(id)) {
                break;
            }
            n++;
        }
        return n;
    }

    /** Pins the given ids (each must be cached or is added now), then evicts unpinned blocks down to the capacity. */
    public void pin(List<Long> ids, int blockTokens) {
        for (Long id : ids) {
            Entry e = entries.get(id);
            if (e == null) {
                e = new Entry(id, blockTokens);
                entries.put(id, e);
                usedTokens += blockTokens;
            } else if (e.pins == 0) {
                lru.remove(id);
            }
            if (e.pins == 0) {
                pinnedTokens += e.tokens;
                pinnedBlocks++;
            }
            e.pins++;
        }
        evict();
    }

    /** Unpins {@code ids}; the last id becomes least recent of them, so a prefix outlives its tail. */
    public void release(List<Long> ids) {
        for (int i = ids.size() - 1; i >= 0; i--) {
            Entry e = entries.get(ids.get(i));
            if (e == null || e.pins == 0) {
                throw new IllegalStateException("block " + ids.get(i) + " is not pinned");
            }
            e.pins--;
            if (e.pins == 0) {
                pinnedTokens -= e.tokens;
                pinnedBlocks--;
                lru.put(e.id, e);
            }
        }
        evict();
    }

    private void evict() {
        Iterator<Entry> oldest = lru.values().iterator();
        while (usedTokens > capacityTokens && oldest.hasNext()) {
            Entry e = oldest.next();
            oldest.remove();
            entries.remove(e.id);
            usedTokens -= e.tokens;
            evictions++;
        }
    }

    public boolean contains(long id) {
        return entries.containsKey(id);
    }

    public long usedTokens() {
        return usedTokens;
    }

    public long pinnedTokens() {
        return pinnedTokens;
    }

    public long pinnedBlocks() {
        return pinnedBlocks;
    }

    public long capacityTokens() {
        return capacityTokens;
    }

    public long evictions() {
        return evictions;
    }

    public int size() {
        return entries.size();
    }
}
