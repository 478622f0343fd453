package io.ailb.lb.redis;

import io.ailb.codec.resp.RespValue;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * The calls of select.lua and release.lua and the decoded select.lua reply. See the scripts for the KEYS/ARGV layouts;
 * this class is their only Java-side writer and reader.
 */
public final class InflightSelection {
    /** Largest random tie-break value: stays an exact integer in Lua's doubles. */
    private static final int RANDOM_BOUND = Integer.MAX_VALUE;
    private static final char[] HEX = "0123456789abcdef".toCharArray();

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
        private final int leaseTtlSeconds;

        /**
         * {@code leaseTtlSeconds}: the longest expected request; a count still held that long after its increment is
         * given back by a later select.lua call (the stream's own release then changes nothing).
         */
        public Settings(int maxRequestCount, int cleanIntervalSeconds, int inflightTtlSeconds, int prefixTtlSeconds,
                int leaseTtlSeconds) {
            this.maxRequestCount = maxRequestCount;
            this.cleanIntervalSeconds = cleanIntervalSeconds;
            this.inflightTtlSeconds = inflightTtlSeconds;
            this.prefixTtlSeconds = prefixTtlSeconds;
            this.leaseTtlSeconds = leaseTtlSeconds;
        }
    }

    /**
     * The select.lua call. {@code prefixHashes} may be empty (plain least in flight); {@code randomValue} must lie in
     * {@code [0, Integer.MAX_VALUE)}; {@code leaseId} names this request's increment (see {@link #leaseId}) and is
     * what {@link #release} takes back.
     */
    public static RedisCommand command(RedisKeys keys, List<String> prefixHashes, List<String> healthyHosts,
            List<String> unhealthyHosts, Settings settings, int randomValue, String leaseId) {
        List<String> keyList = new ArrayList<>(4 + prefixHashes.size());
        keyList.add(keys.inflight());
        keyList.add(keys.cleaned());
        keyList.add(keys.leases());
        keyList.add(keys.leaseHosts());
        for (String hash : prefixHashes) {
            keyList.add(keys.prefix(hash));
        }
        List<String> args = new ArrayList<>(8 + healthyHosts.size() + unhealthyHosts.size());
        args.add(Integer.toString(randomValue));
        args.add(Integer.toString(settings.maxRequestCount));
        args.add(Integer.toString(settings.cleanIntervalSeconds));
        args.add(Integer.toString(settings.inflightTtlSeconds));
        args.add(Integer.toString(settings.prefixTtlSeconds));
        args.add(leaseId);
        args.add(Integer.toString(settings.leaseTtlSeconds));
        args.add(Integer.toString(healthyHosts.size()));
        args.addAll(healthyHosts);
        args.addAll(unhealthyHosts);
        return RedisCommand.script(RedisScripts.SELECT, keyList, args);
    }

    /** A lease id: the 64 random bits as 16 lower-case hex digits. */
    public static String leaseId(long randomBits) {
        char[] out = new char[16];
        for (int i = 15; i >= 0; i--) {
            out[i] = HEX[(int) (randomBits & 0xF)];
            randomBits >>>= 4;
        }
        return new String(out);
    }

    /** The bound for the tie-break value passed to {@link #command}. */
    public static int randomBound() {
        return RANDOM_BOUND;
    }

    /**
     * release.lua for the lease {@code leaseId}: gives back the count that select.lua took under that lease, if it did
     * and nothing gave it back yet. Safe to send when the select.lua call's outcome is unknown, and more than once.
     */
    public static RedisCommand release(RedisKeys keys, String leaseId) {
        return RedisCommand.script(RedisScripts.RELEASE, Arrays.asList(keys.inflight(), keys.leases(),
                keys.leaseHosts()), Collections.singletonList(leaseId));
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
