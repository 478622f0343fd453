package io.ailb.sim.bounds;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * An LRU set of prefix-chained block ids: the cache of one instance, a router's approximate index of one instance, or
 * one pooled cache. Because ids are prefix-chained, "the longest cached prefix" of a request is the number of its
 * leading ids present.
 *
 * <p>{@link #insert} touches a request's blocks leaf first and root last, so an ancestor is never older than its
 * descendants: the least recently used entry is always a leaf, and evicting from the LRU end is leaf-LRU eviction
 * (what SGLang's radix tree does) without holding the tree. Each entry weighs either one (capacity counts blocks) or
 * its request's {@code blockTokens} (capacity counts tokens). An optional time to live makes entries older than it
 * count as absent (Dynamo's approximate indexer keeps routed blocks for 120 s).
 */
public final class PrefixLru {
    private static final class Node {
        final long id;
        long weight;
        long touchedMs;
        Node prev;
        Node next;

        Node(long id) {
            this.id = id;
        }
    }

    private final long capacity;
    private final boolean weighByTokens;
    private final long ttlMs;
    private final Map<Long, Node> nodes = new HashMap<>();
    /** Most recently used end. */
    private Node head;
    /** Least recently used end. */
    private Node tail;

    private long size;
    private long evictions;

    /**
     * @param capacity      the most weight held; {@code Long.MAX_VALUE} for unbounded
     * @param weighByTokens true: an entry weighs its request's {@code blockTokens}; false: one
     * @param ttlMs         entries not touched for longer than this count as absent; 0 or less: no expiry
     */
    public PrefixLru(long capacity, boolean weighByTokens, long ttlMs) {
        if (capacity <= 0) {
            throw new IllegalArgumentException("capacity must be positive: " + capacity);
        }
        this.capacity = capacity;
        this.weighByTokens = weighByTokens;
        this.ttlMs = ttlMs;
    }

    /** Unbounded, no expiry. */
    public static PrefixLru unbounded() {
        return new PrefixLru(Long.MAX_VALUE, false, 0);
    }

    /** The number of leading {@code blocks} held (and not expired at {@code nowMs}); does not change recency. */
    public int match(List<Long> blocks, long nowMs) {
        int matched = 0;
        for (Long id : blocks) {
            Node n = nodes.get(id);
            if (n == null || expired(n, nowMs)) {
                break;
            }
            matched++;
        }
        return matched;
    }

    /** Adds (or refreshes) every block of a request, then evicts least recently used entries down to capacity. */
    public void insert(List<Long> blocks, int blockTokens, long nowMs) {
        long weight = weighByTokens ? Math.max(1, blockTokens) : 1;
        for (int i = blocks.size() - 1; i >= 0; i--) {
            long id = blocks.get(i);
            Node n = nodes.get(id);
            if (n == null) {
                n = new Node(id);
                n.weight = weight;
                nodes.put(id, n);
                size += weight;
            } else {
                unlink(n);
            }
            n.touchedMs = nowMs;
            pushHead(n);
        }
        while (size > capacity && tail != null) {
            Node victim = tail;
            unlink(victim);
            nodes.remove(victim.id);
            size -= victim.weight;
            evictions++;
        }
    }

    /** Whether {@code id} is held and not expired at {@code nowMs}. */
    public boolean contains(long id, long nowMs) {
        Node n = nodes.get(id);
        return n != null && !expired(n, nowMs);
    }

    /** Total weight held (blocks or tokens), expired entries included until evicted. */
    public long size() {
        return size;
    }

    public int entries() {
        return nodes.size();
    }

    public long evictions() {
        return evictions;
    }

    public long capacity() {
        return capacity;
    }

    private boolean expired(Node n, long nowMs) {
        return ttlMs > 0 && nowMs - n.touchedMs > ttlMs;
    }

    private void unlink(Node n) {
        if (n.prev != null) {
            n.prev.next = n.next;
        } else {
            head = n.next;
        }
        if (n.next != null) {
            n.next.prev = n.prev;
        } else {
            tail = n.prev;
        }
        n.prev = null;
        n.next = null;
    }

    private void pushHead(Node n) {
        n.next = head;
        if (head != null) {
            head.prev = n;
        }
        head = n;
        if (tail == null) {
            tail = n;
        }
    }
}
