package io.ailb.lb.redis;

import io.ailb.codec.resp.RespValue;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The call of select.lua and its decoded reply. See select.lua for the KEYS/ARGV layout; this class is its only
 * Java-side writer and reader.
 */
public final class InflightSelection {
    /** Largest random tie-break value: stays an exact integer in Lua's doubles. */
    private static final int RANDOM_BOUND = Integer.MAX_VALUE;

    private final boolean full;
    private final String host;
    private final long count;
    private final int depth;

    private InflightSelection(boolean full, String host, long count, int depth) {
        this.full = full;
        this.host = host;
        this.count = count;
        this.depth = depth;
    }

    /** Call parameters that come from the policy config. */
    public static final class Settings {
        private final int maxRequestCount;
        private final int cleanIntervalSeconds;
        private final int inflightTtlSeconds;
        private final int prefixTtlSeconds;

        public Settings(int maxRequestCount, int cleanIntervalSeconds, int inflightTtlSeconds, int prefixTtlSeconds) {
            this.maxRequestCount = maxRequestCount;
            this.cleanIntervalSeconds = cleanIntervalSeconds;
            this.inflightTtlSeconds = inflightTtlSeconds;
            this.prefixTtlSeconds = prefixTtlSeconds;
        }
    }

    /**
     * The select.lua call. {@code prefixHashes} may be empty (plain least in flight); {@code randomValue} must lie in
     * {@code [0, Integer.MAX_VALUE)}.
     */
    public static RedisCommand command(RedisKeys keys, List<String> prefixHashes, List<String> healthyHosts,
            List<String> unhealthyHosts, Settings settings, int randomValue) {
        List<String> keyList = new ArrayList<>(2 + prefixHashes.size());
        keyList.add(keys.inflight());
        keyList.add(keys.cleaned());
        for (String hash : prefixHashes) {
            keyList.add(keys.prefix(hash));
        }
        List<String> args = new ArrayList<>(6 + healthyHosts.size() + unhealthyHosts.size());
        args.add(Integer.toString(randomValue));
        args.add(Integer.toString(settings.maxRequestCount));
        args.add(Integer.toString(settings.cleanIntervalSeconds));
        args.add(Integer.toString(settings.inflightTtlSeconds));
        args.add(Integer.toString(settings.prefixTtlSeconds));
        args.add(Integer.toString(healthyHosts.size()));
        args.addAll(healthyHosts);
        args.addAll(unhealthyHosts);
        return RedisCommand.script(RedisScripts.SELECT, keyList, args);
    }

    /** The bound for the tie-break value passed to {@link #command}. */
    public static int randomBound() {
        return RANDOM_BOUND;
    }

    /** release.lua for {@code host}. */
    public static RedisCommand release(RedisKeys keys, String host) {
        return RedisCommand.script(RedisScripts.RELEASE, Collections.singletonList(keys.inflight()),
                Collections.singletonList(host));
    }

    /** Decodes a select.lua reply; null when it does not have the script's shape. */
    public static InflightSelection parse(RespValue reply) {
        if (reply.kind() != RespValue.Kind.ARRAY) {
            return null;
        }
        List<RespValue> parts = reply.elements();
        if (parts.size() < 3 || parts.get(0).kind() != RespValue.Kind.BULK_STRING
                || parts.get(1).kind() != RespValue.Kind.BULK_STRING || parts.get(2).kind() != RespValue.Kind.INTEGER) {
            return null;
        }
        String status = parts.get(0).asString();
        String host = parts.get(1).asString();
        long count = parts.get(2).asLong();
        if (status.equals("full") && parts.size() == 3) {
            return new InflightSelection(true, host, count, 0);
        }
        if (status.equals("ok") && parts.size() == 4 && parts.get(3).kind() == RespValue.Kind.INTEGER) {
            return new InflightSelection(false, host, count, (int) parts.get(3).asLong());
        }
        return null;
    }

    /** True when every healthy host already had maxRequestCount in flight; nothing was incremented. */
    public boolean full() {
        return full;
    }

    public String host() {
        return host;
    }

    /** The host's in-flight count: after the increment, or the blocking minimum when {@link #full()}. */
    public long count() {
        return count;
    }

    /** How many prefix levels matched (0 when least in flight decided). */
    public int depth() {
        return depth;
    }
}
