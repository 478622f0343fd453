package io.ailb.lb.redis;

import io.ailb.codec.resp.RespEncoder;
import io.ailb.codec.resp.RespValue;
import io.ailb.hostkit.RespConnection;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import redis.embedded.RedisServer;

/**
 * A real Redis for script tests: {@code REDIS_URL} (redis://host:port) when set, else one embedded server per JVM on
 * a free port. Talks RESP over a plain socket with the project's codec.
 */
public final class TestRedis implements AutoCloseable {
    private static RedisServer server;
    private static String host;
    private static int port;

    private final RespConnection connection = new RespConnection(host, port);

    /** True after the last {@link #run} had to fall back from EVALSHA to EVAL. */
    public boolean lastCallNeededEval;

    private TestRedis() {}

    /** A connection to a flushed database. */
    public static synchronized TestRedis connect() throws IOException {
        if (host == null) {
            start();
        }
        TestRedis redis = new TestRedis();
        redis.call("FLUSHALL");
        return redis;
    }

    private static void start() throws IOException {
        String url = System.getenv("REDIS_URL");
        if (url != null && !url.isEmpty()) {
            URI uri = URI.create(url);
            host = uri.getHost();
            port = uri.getPort() < 0 ? 6379 : uri.getPort();
            return;
        }
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        host = "127.0.0.1";
        server = RedisServer.newRedisServer()
                .port(port)
                .bind(host)
                .setting("save \"\"")
                .setting("appendonly no")
                .build();
        server.start();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                server.stop();
            } catch (IOException e) {
                // The JVM is exiting; the child process dies with it.
            }
        }));
    }

    public RespValue call(String... args) {
        return send(RespEncoder.command(args));
    }

    /** Sends a command as the shell does: EVALSHA first, EVAL after NOSCRIPT. */
    public RespValue run(RedisCommand command) {
        if (!command.isScript()) {
            lastCallNeededEval = false;
            return send(command.encode());
        }
        RespValue reply = send(command.encodeEvalSha());
        lastCallNeededEval = reply.isError() && reply.errorCode().equals("NOSCRIPT");
        return lastCallNeededEval ? send(command.encodeEval()) : reply;
    }

    private RespValue send(byte[] request) {
        return connection.send(request);
    }

    @Override
    public void close() {
        connection.close();
    }
}
