package io.ailb.proxywasm.testkit;

import io.ailb.codec.resp.RespDecoder;
import io.ailb.codec.resp.RespEncoder;
import io.ailb.codec.resp.RespValue;
import io.ailb.hostkit.TestRedis;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import redis.embedded.RedisServer;

/**
 * A real Redis answering a {@link FakeHost}'s Redis callouts: the guest's RESP bytes go to the server as they are and
 * its reply comes back as the answer; a failed round trip answers NETWORK_ERROR and reconnects on the next call.
 * {@link #start()} runs an embedded {@code redis-server} on a free port, or uses the server named by {@code REDIS_URL}
 * ({@code redis://[user:password@]host:port}); its credentials are the ones used, whatever the guest's
 * {@code proxy_redis_init} passed.
 */
public final class RealRedis implements RedisResponder, AutoCloseable {
    private static final int TIMEOUT_MILLIS = 5000;

    private final String host;
    private final int port;
    private final String username;
    private final String password;
    private final RedisServer server;
    /** One connection per database, as Envoy keeps one per cluster ({@code ?db=N} included). */
    private final Map<Integer, Connection> connections = new HashMap<>();

    private RealRedis(String host, int port, String username, String password, RedisServer server) {
        this.host = host;
        this.port = port;
        this.username = username;
        this.password = password;
        this.server = server;
    }

    /** An embedded server on a free local port, or the server of {@code REDIS_URL} when that is set. */
    public static RealRedis start() {
        TestRedis redis = TestRedis.start();
        return new RealRedis(redis.host(), redis.port(), redis.username(), redis.password(), redis.embedded());
    }

    /** A server that is already running, without credentials. */
    public static RealRedis at(String host, int port) {
        return at(host, port, "", "");
    }

    /**
     * A server that is already running; an empty {@code password} sends no AUTH, an empty {@code username} AUTHs as
     * the default user.
     */
    public static RealRedis at(String host, int port, String username, String password) {
        return new RealRedis(host, port, username, password, null);
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    @Override
    public RedisAnswer answer(RedisCallout call) {
        Connection connection = connections.get(call.database());
        try {
            if (connection == null) {
                connection = connect(call.database());
                connections.put(call.database(), connection);
            }
            return RedisAnswer.raw(connection.exchange(call.query()));
        } catch (IOException e) {
            if (connection != null) {
                connection.close();
            }
            connections.remove(call.database());
            return RedisAnswer.networkError();
        }
    }

    /** Runs one command on a fresh connection to database 0, e.g. to check what a guest stored. */
    public RespValue command(String... args) {
        Connection connection = null;
        try {
            connection = connect(0);
            byte[] reply = connection.exchange(RespEncoder.command(args));
            return RespDecoder.DEFAULT.decodeExactly(reply, 0, reply.length);
        } catch (IOException e) {
            throw new UncheckedIOException("redis " + host + ":" + port + " " + Arrays.toString(args), e);
        } finally {
            if (connection != null) {
                connection.close();
            }
        }
    }

    /** Deletes every key of every database and the server's script cache, so the next EVALSHA meets NOSCRIPT. */
    public void flushAll() {
        command("FLUSHALL");
        command("SCRIPT", "FLUSH");
    }

    /** Closes the connections and stops the embedded server (a {@code REDIS_URL} server keeps running). */
    @Override
    public void close() {
        connections.values().forEach(Connection::close);
        connections.clear();
        if (server != null && server.isActive()) {
            try {
                server.stop();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private Connection connect(int database) throws IOException {
        Socket socket = new Socket();
        socket.setTcpNoDelay(true);
        socket.connect(new InetSocketAddress(host, port), TIMEOUT_MILLIS);
        socket.setSoTimeout(TIMEOUT_MILLIS);
        Connection connection = new Connection(socket);
        try {
            if (!password.isEmpty()) {
                connection.expectOk(
                        username.isEmpty()
                                ? RespEncoder.command("AUTH", password)
                                : RespEncoder.command("AUTH", username, password),
                        "AUTH");
            }
            if (database != 0) {
                connection.expectOk(RespEncoder.command("SELECT", Integer.toString(database)), "SELECT " + database);
            }
            return connection;
        } catch (IOException e) {
            connection.close();
            throw e;
        }
    }

    /** One socket; a reply is read until the codec says it is complete. */
    private static final class Connection {
        private final Socket socket;
        private byte[] buffer = new byte[8192];
        private int filled;

        Connection(Socket socket) {
            this.socket = socket;
        }

        byte[] exchange(byte[] request) throws IOException {
            OutputStream out = socket.getOutputStream();
            out.write(request);
            out.flush();
            InputStream in = socket.getInputStream();
            while (true) {
                RespDecoder.Result result = RespDecoder.DEFAULT.decode(buffer, 0, filled);
                if (result.isComplete()) {
                    byte[] reply = Arrays.copyOf(buffer, result.consumed());
                    System.arraycopy(buffer, result.consumed(), buffer, 0, filled - result.consumed());
                    filled -= result.consumed();
                    return reply;
                }
                if (filled == buffer.length) {
                    buffer = Arrays.copyOf(buffer, buffer.length * 2);
                }
                int read = in.read(buffer, filled, buffer.length - filled);
                if (read < 0) {
                    throw new IOException("redis closed the connection");
                }
                filled += read;
            }
        }

        void expectOk(byte[] command, String what) throws IOException {
            byte[] reply = exchange(command);
            if (RespDecoder.DEFAULT.decodeExactly(reply, 0, reply.length).isError()) {
                throw new IOException(what + " failed: " + new String(reply, java.nio.charset.StandardCharsets.UTF_8));
            }
        }

        void close() {
            try {
                socket.close();
            } catch (IOException ignored) {
                // A broken socket has nothing left to report.
            }
        }
    }
}
