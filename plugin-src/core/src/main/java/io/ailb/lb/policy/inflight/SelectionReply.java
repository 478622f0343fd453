package io.ailb.lb.policy.inflight;

import io.ailb.codec.resp.RespValue;
import java.util.List;

/**
 * The reply both selection scripts (select.lua, cache_aware.lua) give: {@code {"ok", host, count, depth, …}} with the
 * script's further integers, or {@code {"full", host, count}}. Subclasses decode the further integers.
 */
public abstract class SelectionReply {
    private final boolean full;
    private final String host;
    private final long count;
    private final int depth;

    /** {@code parts} as {@link #validParts} let them through. */
    protected SelectionReply(List<RespValue> parts) {
        this.full = parts.get(0).asString().equals("full");
        this.host = parts.get(1).asString();
        this.count = parts.get(2).asLong();
        this.depth = (int) integerAt(parts, 3);
    }

    /**
     * The elements of {@code reply} when it is a "full" reply or an "ok" reply with {@code okIntegers} integers after
     * the count; null when it has neither shape.
     */
    protected static List<RespValue> validParts(RespValue reply, int okIntegers) {
        if (reply.kind() != RespValue.Kind.ARRAY) {
            return null;
        }
        List<RespValue> parts = reply.elements();
        if (parts.size() < 3
                || parts.get(0).kind() != RespValue.Kind.BULK_STRING
                || parts.get(1).kind() != RespValue.Kind.BULK_STRING
                || parts.get(2).kind() != RespValue.Kind.INTEGER) {
            return null;
        }
        String status = parts.get(0).asString();
        if (status.equals("full") && parts.size() == 3) {
            return parts;
        }
        if (!status.equals("ok") || parts.size() != 3 + okIntegers) {
            return null;
        }
        for (int i = 3; i < parts.size(); i++) {
            if (parts.get(i).kind() != RespValue.Kind.INTEGER) {
                return null;
            }
        }
        return parts;
    }

    /** The integer at {@code index}; a "full" reply has none after the count, so they read as 0. */
    protected static long integerAt(List<RespValue> parts, int index) {
        return index < parts.size() ? parts.get(index).asLong() : 0;
    }

    /** True when every healthy host already had maxRequestCount in flight; nothing was counted. */
    public boolean full() {
        return full;
    }

    public String host() {
        return host;
    }

    /** The host's in-flight count after this request, or the least count when {@link #full()}. */
    public long count() {
        return count;
    }

    /**
     * How much of the request's prefix the chosen host holds: prefix levels for select.lua, blocks for
     * cache_aware.lua (0 = none).
     */
    public int depth() {
        return depth;
    }
}
