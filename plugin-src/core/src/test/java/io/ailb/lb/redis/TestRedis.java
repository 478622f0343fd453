package io.ailb.lb.redis;

import io.ailb.codec.resp.RespDecoder;
import io.ailb.codec.resp.RespEncoder;
import io.ailb.codec.resp.RespValue;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.Arrays;
import redis.embedded.RedisServer;

/**
 * A real Redis for script tests: {@code REDIS_URL} (redis://host:port) when set, else one embedded server per JVM on
 * a free port. Talks RESP over a plain socket with the project's codec.
 */
public final class TestRedis implements AutoCloseable {
    private static RedisServer server;
    private static String host;
    private static int port;

    private final Socket socket;
    private final OutputStream out;
    private final InputStream in;
    private byte[] buffer = new byte[8192];
    private int filled;

    /** True after the last {@link #run} had to fall back from EVALSHA to EVAL. */
    public boolean lastCallNeededEval;

    private TestRedis() throws IOException {
        socket = new Socket(host, port);
        socket.setSoTimeout(10_000);
        out = socket.getOutputStream();
        in = socket.getInputStream();
    }

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
        try {
            out.write(request);
            out.flush();
            while (true) {
                RespDecoder.Result result = RespDecoder.DEFAULT.decode(buffer, 0, filled);
                if (result.isComplete()) {
                    System.arraycopy(buffer, result.consumed(), buffer, 0, filled - result.consumed());
                    filled -= result.consumed();
                    return result.value();
                }
                if (filled == buffer.length) {
                    buffer = Arrays.copyOf(buffer, buffer.length * 2);
                }
                int n = in.read(buffer, filled, buffer.length - filled);
                if (n < 0) {
                    throw new IOException("Redis closed the connection");
                }
                filled += n;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
