package io.ailb.emulator;

import java.net.URI;

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
        URI uri = URI.create(url);
        if (!"redis".equals(uri.getScheme()) || uri.getHost() == null) {
            throw new IllegalArgumentException("expected redis://[user:pass@]host:port, got " + url);
        }
        String user = "";
        String pass = "";
        if (uri.getUserInfo() != null) {
            String[] parts = uri.getUserInfo().split(":", 2);
            user = parts.length == 2 ? parts[0] : "";
            pass = parts.length == 2 ? parts[1] : parts[0];
        }
        return new RedisEndpoint(uri.getHost(), uri.getPort() < 0 ? 6379 : uri.getPort(), user, pass);
    }

    @Override
    public String toString() {
        return host + ":" + port;
    }
}
