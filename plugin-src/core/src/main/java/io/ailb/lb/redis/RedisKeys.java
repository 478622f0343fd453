package io.ailb.lb.redis;

/**
 * Key names of one route+cluster: {@code llb:{<route>|<cluster>}:<suffix>}. The braces are a Redis Cluster hash tag,
 * so every key of a route+cluster lives in one slot and a script may touch them all. Route and cluster are escaped
 * ({@code %}, {@code {}, {@code }}, and {@code |} in the route) so that distinct pairs never share a key and a name
 * can never end the tag early.
 */
public final class RedisKeys {
    private final String prefix;

    private RedisKeys(String prefix) {
        this.prefix = prefix;
    }

    /**
     * cluster_metrics' shared in-flight counts of one route: {@code <keyPrefix>:{<route>}:inflight} and its lease keys
     * ({@link #inflight()}, {@link #leases()}, {@link #leaseHosts()}, the hosts being services here).
     */
    public static RedisKeys forServices(String keyPrefix, String routeName) {
        return new RedisKeys(keyPrefix + ":{" + escape(routeName, true) + "}:");
    }

    public static RedisKeys of(String routeName, String clusterName) {
        return new RedisKeys("llb:{" + escape(routeName, true) + "|" + escape(clusterName, false) + "}:");
    }

    /** HASH host → in-flight count, shared by global_least_request and prefix_cache. */
    public String inflight() {
        return prefix + "inflight";
    }

    /** Exists while the last cleanup of {@link #inflight()} is younger than the clean interval. */
    public String cleaned() {
        return prefix + "cleaned";
    }

    /** ZSET lease id → expiry (Unix seconds, Redis clock): one member per counted request not yet released. */
    public String leases() {
        return prefix + "leases";
    }

    /** HASH lease id → the host whose in-flight count the lease holds. */
    public String leaseHosts() {
        return prefix + "lease-hosts";
    }

    /** STRING holding the host that served the conversation prefix with this (chained) hash. */
    public String prefix(String prefixHash) {
        return prefix + "p:" + prefixHash;
    }

    /** cache_aware: HASH host → work units of the requests in flight on it. */
    public String load() {
        return prefix + "load";
    }

    /** cache_aware: exists while its last cleanup of {@link #inflight()} and {@link #load()} is recent. */
    public String cacheAwareCleaned() {
        return prefix + "ca-cleaned";
    }

    /** cache_aware: ZSET lease id → expiry (Unix seconds, Redis clock). Separate from {@link #leases()}. */
    public String cacheAwareLeases() {
        return prefix + "ca-leases";
    }

    /** cache_aware: HASH lease id → {@code "<work> <held> w<wait> <host>"}, what the lease gives back. */
    public String cacheAwareLeaseInfo() {
        return prefix + "ca-lease-info";
    }

    /**
     * cache_aware: HASH {@code n} requests routed (the clock of each block's share of the traffic), {@code w} and
     * {@code c} decayed sums of the work queued per request and of requests, {@code f} the fit of first-token times.
     */
    public String cacheAwareRouted() {
        return prefix + "ca-routed";
    }

    /** cache_aware: HASH host → prompt tokens routed to it as work so far (what entered its KV cache). */
    public String cacheAwareWritten() {
        return prefix + "ca-written";
    }

    /**
     * cache_aware: HASH host → "work (prompt tokens routed to it, each fading by e^(-age / 5 s)) and the Unix seconds
     * it was computed at".
     */
    public String cacheAwareRecent() {
        return prefix + "ca-recent";
    }

    /**
     * cache_aware: HASH host → prompt tokens routed to it as work by the requests in flight there (the KV cache they
     * take up or will).
     */
    public String cacheAwareHeld() {
        return prefix + "ca-held";
    }

    /** cache_aware: HASH host → requests routed to it whose first token has not come back. */
    public String cacheAwareWaiting() {
        return prefix + "ca-waiting";
    }

    /**
     * cache_aware: ZSET lease id → when, on the gateways' clock in Unix ms, the first token of a request whose
     * response does not stream is expected (the gateway never sees it come).
     */
    public String cacheAwareUnseenFirstTokens() {
        return prefix + "ca-due";
    }

    /**
     * cache_aware: HASH host → since when, on the gateways' clock in Unix ms, its queue has been draining (the later of
     * its last first token and its queue's last filling from empty).
     */
    public String cacheAwareDrain() {
        return prefix + "ca-drain";
    }

    /**
     * cache_aware: HASH holder host → "last use (Unix seconds) and {@link #cacheAwareWritten()} of the host then" for
     * the conversation block with this chained hash, plus
     * {@code #u} (requests routed with the block) and {@code #t} ({@link #cacheAwareRouted()} when it was first seen).
     */
    public String holders(String prefixHash) {
        return prefix + "ch:" + prefixHash;
    }

    /**
     * cache_aware: HASH of the session whose id hashes to {@code sessionHash}: {@code h} the host of its last request,
     * {@code p} that request's estimated prompt tokens.
     */
    public String cacheAwareSession(String sessionHash) {
        return prefix + "cs:" + sessionHash;
    }

    /** The hash tag in braces, e.g. {@code {route|outbound|80||svc}}. */
    public String hashTag() {
        return prefix.substring(prefix.indexOf('{'), prefix.lastIndexOf('}') + 1);
    }

    private static String escape(String name, boolean escapeBar) {
        StringBuilder out = new StringBuilder(name.length());
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c == '%') {
                out.append("%25");
            } else if (c == '{') {
                out.append("%7B");
            } else if (c == '}') {
                out.append("%7D");
            } else if (c == '|' && escapeBar) {
                out.append("%7C");
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }
}
