package io.ailb.lb.policy.inflight;

import io.ailb.codec.resp.RespValue;
import io.ailb.lb.redis.RedisCommand;
import io.ailb.lb.redis.RedisKeys;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * The calls of select.lua and release.lua and the decoded select.lua reply. See the scripts for the KEYS/ARGV layouts;
 * this class is their only Java-side writer and reader.
 */
public final class InflightSelection extends SelectionReply {
    /** Largest random tie-break value: stays an exact integer in Lua's doubles. */
    private static final int RANDOM_BOUND = Integer.MAX_VALUE;

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private InflightSelection(List<RespValue> parts) {
        super(parts);
    }

    /** Call parameters that come from the policy config; cache_aware.lua takes them the same way. */
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
        public Settings(
                int maxRequestCount,
                int cleanIntervalSeconds,
                int inflightTtlSeconds,
                int prefixTtlSeconds,
                int leaseTtlSeconds) {
            this.maxRequestCount = maxRequestCount;
            this.cleanIntervalSeconds = cleanIntervalSeconds;
            this.inflightTtlSeconds = inflightTtlSeconds;
            this.prefixTtlSeconds = prefixTtlSeconds;
            this.leaseTtlSeconds = leaseTtlSeconds;
        }

        /** The per-host in-flight cap, 0 = none. */
        public int maxRequestCount() {
            return maxRequestCount;
        }

        /** How often counts of hosts that left are dropped, in seconds; 0 = at every call. */
        public int cleanIntervalSeconds() {
            return cleanIntervalSeconds;
        }

        /** TTL of prefix keys (cache_aware: of block holders), in seconds. */
        public int prefixTtlSeconds() {
            return prefixTtlSeconds;
        }

        /** TTL of the in-flight, queue and lease keys, in seconds. */
        public int inflightTtlSeconds() {
            return inflightTtlSeconds;
        }

        /** How long a lease is held before a later call gives its count back, in seconds. */
        public int leaseTtlSeconds() {
            return leaseTtlSeconds;
        }

        /** A new ARGV list holding ARGV[1..7], the same in select.lua and cache_aware.lua. */
        public List<String> leadingArgs(int randomValue, String leaseId, int capacity) {
            List<String> args = new ArrayList<>(capacity);
            args.add(Integer.toString(randomValue));
            args.add(Integer.toString(maxRequestCount));
            args.add(Integer.toString(cleanIntervalSeconds));
            args.add(Integer.toString(inflightTtlSeconds));
            args.add(Integer.toString(prefixTtlSeconds));
            args.add(leaseId);
            args.add(Integer.toString(leaseTtlSeconds));
            return args;
        }
    }

    /**
     * The select.lua call. {@code prefixHashes} may be empty (plain least in flight); {@code randomValue} must lie in
     * {@code [0, Integer.MAX_VALUE)}; {@code leaseId} names this request's increment (see {@link #leaseId}) and is
     * what {@link #release} takes back.
     */
    public static RedisCommand command(
            RedisKeys keys,
            List<String> prefixHashes,
            List<String> healthyHosts,
            List<String> unhealthyHosts,
            Settings settings,
            int randomValue,
            String leaseId) {
        List<String> keyList = new ArrayList<>(4 + prefixHashes.size());
        keyList.add(keys.inflight());
        keyList.add(keys.cleaned());
        keyList.add(keys.leases());
        keyList.add(keys.leaseHosts());
        for (String hash : prefixHashes) {
            keyList.add(keys.prefix(hash));
        }
        List<String> args = settings.leadingArgs(randomValue, leaseId, 8 + healthyHosts.size() + unhealthyHosts.size());
        addHosts(args, healthyHosts, unhealthyHosts);
        return RedisCommand.script(InflightScripts.SELECT, keyList, args);
    }

    /** The ARGV tail of select.lua and cache_aware.lua: h, the h healthy hosts, then the unhealthy ones. */
    public static void addHosts(List<String> args, List<String> healthyHosts, List<String> unhealthyHosts) {
        args.add(Integer.toString(healthyHosts.size()));
        args.addAll(healthyHosts);
        args.addAll(unhealthyHosts);
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
        return RedisCommand.script(
                InflightScripts.RELEASE,
                Arrays.asList(keys.inflight(), keys.leases(), keys.leaseHosts()),
                Collections.singletonList(leaseId));
    }

    /** Decodes a select.lua reply; null when it does not have the script's shape. */
    public static InflightSelection parse(RespValue reply) {
        List<RespValue> parts = validParts(reply, 1);
        return parts == null ? null : new InflightSelection(parts);
    }
}
