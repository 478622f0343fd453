package io.ailb.emulator;

import io.ailb.hostkit.TestRedis;

/**
 * Where a Redis cluster of the gateway really lives. {@code username}/{@code password} are used only when the guest's
 * {@code proxy_redis_init} passes none (e.g. a {@code REDIS_URL} with credentials).
 */
public record RedisEndpoint(String host, int port, String username, String password) {

    public static RedisEndpoint of(String host, int port) {
        return new RedisEndpoint(host, port, "", "");
    }

    /** Parses {@code redis://[user:pass@]host:port}. */
    public static RedisEndpoint parse(String url) {
        TestRedis redis = TestRedis.parse(url);
        return new RedisEndpoint(redis.host(), redis.port(), redis.username(), redis.password());
    }

    @Override
    public String toString() {
        return host + ":" + port;
    }
}
