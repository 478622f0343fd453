package io.ailb.lb.shell;

import io.ailb.lb.redis.RedisTarget;
import io.ailb.proxywasm.Clock;
import io.ailb.proxywasm.Log;
import io.ailb.proxywasm.ProxyWasmException;
import java.util.HashMap;
import java.util.Map;

/**
 * The Redis services of the current configuration. A service that cannot be initialised at configure time (not yet
 * pushed to the gateway, say) is retried before later calls, at most once per second, instead of failing the plugin.
 */
final class RedisClients {
    private static final long RETRY_MILLIS = 1000;

    /** Target → time of the last failed init; absent = ready. */
    private final Map<RedisTarget, Long> notReady = new HashMap<>();

    private final Map<RedisTarget, Boolean> known = new HashMap<>();

    void configure(Iterable<RedisTarget> targets) {
        for (RedisTarget target : targets) {
            if (known.put(target, Boolean.TRUE) == null) {
                init(target);
            }
        }
    }

    /** True when calls to {@code target} can be sent now. */
    boolean ready(RedisTarget target) {
        Long failedAt = notReady.get(target);
        if (failedAt == null) {
            return known.containsKey(target) || init(target);
        }
        if (Clock.nowMillis() - failedAt < RETRY_MILLIS) {
            return false;
        }
        return init(target);
    }

    /** The cluster name proxy_redis_call takes: without the {@code ?db=N} options of proxy_redis_init. */
    static String callCluster(RedisTarget target) {
        String name = target.clusterName();
        int options = name.indexOf('?');
        return options < 0 ? name : name.substring(0, options);
    }

    private boolean init(RedisTarget target) {
        known.put(target, Boolean.TRUE);
        try {
            io.ailb.proxywasm.Redis.init(
                    target.clusterName(), target.username(), target.password(), target.timeoutMillis());
            notReady.remove(target);
            Log.info("ai-load-balancer: redis ready: " + target);
            return true;
        } catch (ProxyWasmException e) {
            notReady.put(target, Clock.nowMillis());
            Log.warn("ai-load-balancer: redis init failed for " + target + ": " + e.getMessage());
            return false;
        }
    }
}
