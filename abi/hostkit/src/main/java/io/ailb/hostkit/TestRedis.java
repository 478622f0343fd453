package io.ailb.hostkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import redis.embedded.RedisServer;

/**
 * A real Redis for tests, found one way for the fake host and the emulator: the server named by the {@code REDIS_URL}
 * environment variable ({@code redis://[user:password@]host:port}) when set, else an embedded {@code redis-server} on a
 * free local port that keeps nothing on disk.
 *
 * @param username from the URL; "" for none
 * @param password from the URL; "" for none
 * @param embedded the embedded server, or null for a server of {@code REDIS_URL}
 */
public record TestRedis(String host, int port, String username, String password, RedisServer embedded) {

    /** The server of {@code REDIS_URL}, else a newly started embedded one. */
    public static TestRedis start() {
        String url = System.getenv("REDIS_URL");
        if (url != null && !url.isBlank()) {
            return parse(url);
        }
        try {
            int port;
            try (ServerSocket probe = new ServerSocket(0)) {
                port = probe.getLocalPort();
            }
            RedisServer server = RedisServer.newRedisServer()
                    .port(port)
                    .bind("127.0.0.1")
                    .setting("save \"\"")
                    .setting("appendonly no")
                    .build();
            server.start();
            return new TestRedis("127.0.0.1", port, "", "", server);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start an embedded redis-server", e);
        }
    }

    /** A running server named by {@code redis://[user:password@]host:port} (port 6379 when left out). */
    public static TestRedis parse(String url) {
        URI uri = URI.create(url);
        if (!"redis".equals(uri.getScheme()) || uri.getHost() == null) {
            throw new IllegalArgumentException("expected redis://[user:password@]host:port, got " + url);
        }
        String user = "";
        String pass = "";
        if (uri.getUserInfo() != null) {
            String[] parts = uri.getUserInfo().split(":", 2);
            user = parts.length == 2 ? parts[0] : "";
            pass = parts.length == 2 ? parts[1] : parts[0];
        }
        return new TestRedis(uri.getHost(), uri.getPort() < 0 ? 6379 : uri.getPort(), user, pass, null);
    }
}
