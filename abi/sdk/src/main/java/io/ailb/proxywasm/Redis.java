package io.ailb.proxywasm;

import io.ailb.codec.resp.RespEncoder;
import io.ailb.proxywasm.internal.Vm;

/**
 * Higress' Redis extension. {@link #init} once per cluster (usually in {@link RootContext#onConfigure}); then
 * {@link #call} sends raw RESP and routes the reply back to the calling context.
 */
public final class Redis {
    private Redis() {}

    /**
     * {@code proxy_redis_init}. {@code cluster} is an Envoy cluster name such as {@code outbound|6379||redis.static},
     * optionally with {@code ?db=N}.
     *
     * @throws ProxyWasmException e.g. BAD_ARGUMENT when the host does not know the cluster
     */
    public static void init(String cluster, String username, String password, int timeoutMillis) {
        Vm.abi().redisInit(cluster, username, password, timeoutMillis);
    }

    /**
     * {@code proxy_redis_call} with an already RESP-encoded command; returns the token.
     *
     * @throws ProxyWasmException when the host cannot send it (unknown or uninitialised cluster, ...)
     */
    public static int call(String cluster, byte[] respQuery, RedisCallback callback) {
        int token = Vm.abi().redisCall(cluster, respQuery);
        Vm.dispatcher().expectRedisReply(token, callback);
        return token;
    }

    /** Encodes {@code args} as a RESP array of bulk strings and {@link #call}s it. */
    public static int command(String cluster, RedisCallback callback, String... args) {
        return call(cluster, RespEncoder.command(args), callback);
    }
}
