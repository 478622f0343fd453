package io.ailb.emulator;

import io.ailb.codec.resp.RespDecoder;
import io.ailb.codec.resp.RespEncoder;
import io.ailb.codec.resp.RespValue;
import io.ailb.hostkit.TestRedis;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Arrays;
import redis.embedded.RedisServer;

/**
 * A real Redis for tests: an embedded {@code redis-server} on a free local port, or the server named by the
 * {@code REDIS_URL} environment variable ({@code redis://[user:pass@]host:port}) when set. {@link #stop()} and
 * {@link #restart()} simulate outages (embedded only).
 */
public final class LocalRedis implements AutoCloseable {
    private final RedisEndpoint endpoint;
    private final RedisServer server;

    private LocalRedis(RedisEndpoint endpoint, RedisServer server) {
        this.endpoint = endpoint;
        this.server = server;
    }

    /** Starts an embedded server, or connects to {@code REDIS_URL}. */
    public static LocalRedis start() {
        TestRedis redis = TestRedis.start();
        return new LocalRedis(
                new RedisEndpoint(redis.host(), redis.port(), redis.username(), redis.password()), redis.embedded());
    }

    public RedisEndpoint endpoint() {
        return endpoint;
    }

    /** Whether this is an embedded server (else {@code REDIS_URL}, which tests cannot stop). */
    public boolean isEmbedded() {
        return server != null;
    }

    /** Stops the embedded server: connections drop, new ones are refused. */
    public void stop() {
        try {
            requireEmbedded("stop").stop();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Starts the embedded server again on the same port (empty: nothing is persisted). */
    public void restart() {
        try {
            requireEmbedded("restart").start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Deletes every key in every database. */
    public void flushAll() {
        command("FLUSHALL");
    }

    /** Runs one command on a fresh connection and returns the decoded reply (to verify what a plugin stored). */
    public RespValue command(String... args) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(endpoint.host(), endpoint.port()), 2000);
            socket.setSoTimeout(2000);
            if (!endpoint.password().isEmpty()) {
                send(
                        socket,
                        endpoint.username().isEmpty()
                                ? RespEncoder.command("AUTH", endpoint.password())
                                : RespEncoder.command("AUTH", endpoint.username(), endpoint.password()));
            }
            return send(socket, RespEncoder.command(args));
        } catch (IOException e) {
            throw new UncheckedIOException("redis " + endpoint + ": " + Arrays.toString(args), e);
        }
    }

    private static RespValue send(Socket socket, byte[] command) throws IOException {
        socket.getOutputStream().write(command);
        InputStream in = socket.getInputStream();
        ByteArrayOutputStream reply = new ByteArrayOutputStream();
        byte[] chunk = new byte[4096];
        while (true) {
            int read = in.read(chunk);
            if (read < 0) {
                throw new IOException("connection closed before the reply ended");
            }
            reply.write(chunk, 0, read);
            byte[] bytes = reply.toByteArray();
            RespDecoder.Result result = RespDecoder.DEFAULT.decode(bytes, 0, bytes.length);
            if (result.isComplete()) {
                return result.value();
            }
        }
    }

    private RedisServer requireEmbedded(String action) {
        if (server == null) {
            throw new EmulatorException("cannot " + action + " the Redis at REDIS_URL " + endpoint);
        }
        return server;
    }

    @Override
    public void close() {
        if (server != null && server.isActive()) {
            stop();
        }
    }
}
