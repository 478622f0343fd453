package io.ailb.emulator;

import io.ailb.codec.resp.RespDecoder;
import io.ailb.codec.resp.RespEncoder;
import io.ailb.codec.resp.RespValue;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Arrays;

/**
 * One VM's connection to one Redis cluster (Envoy keeps one per worker and cluster). Connects lazily, authenticates
 * and selects the database as {@code proxy_redis_init} asked, and reconnects on the next call after a failure.
 */
final class RedisConnection {
    private final RedisEndpoint endpoint;
    private final String username;
    private final String password;
    private final int database;
    private final int timeoutMillis;
    private Socket socket;

    RedisConnection(RedisEndpoint endpoint, String username, String password, int database, int timeoutMillis) {
        this.endpoint = endpoint;
        this.username = username.isEmpty() && password.isEmpty() ? endpoint.username() : username;
        this.password = username.isEmpty() && password.isEmpty() ? endpoint.password() : password;
        this.database = database;
        this.timeoutMillis = timeoutMillis > 0 ? timeoutMillis : 1000;
    }

    /** Sends the guest's raw RESP query and returns the raw reply; any failure closes the connection. */
    byte[] roundTrip(byte[] query) throws IOException {
        try {
            if (socket == null) {
                connect();
            }
            return exchange(query);
        } catch (IOException e) {
            close();
            throw e;
        }
    }

    /** The timeout {@code proxy_redis_init} gave (1 s when it gave none). */
    int timeoutMillis() {
        return timeoutMillis;
    }

    void close() {
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // Closing a broken socket has nothing left to report.
            }
            socket = null;
        }
    }

    private void connect() throws IOException {
        Socket fresh = new Socket();
        fresh.setTcpNoDelay(true);
        fresh.connect(new InetSocketAddress(endpoint.host(), endpoint.port()), timeoutMillis);
        fresh.setSoTimeout(timeoutMillis);
        socket = fresh;
        if (!password.isEmpty()) {
            expectOk(
                    username.isEmpty()
                            ? RespEncoder.command("AUTH", password)
                            : RespEncoder.command("AUTH", username, password),
                    "AUTH");
        }
        if (database != 0) {
            expectOk(RespEncoder.command("SELECT", Integer.toString(database)), "SELECT " + database);
        }
    }

    private void expectOk(byte[] command, String what) throws IOException {
        byte[] reply = exchange(command);
        RespValue value = RespDecoder.DEFAULT.decodeExactly(reply, 0, reply.length);
        if (value.isError()) {
            throw new IOException(what + " failed: " + value);
        }
    }

    private byte[] exchange(byte[] query) throws IOException {
        OutputStream out = socket.getOutputStream();
        out.write(query);
        out.flush();
        InputStream in = socket.getInputStream();
        ByteArrayOutputStream reply = new ByteArrayOutputStream();
        byte[] chunk = new byte[8192];
        while (true) {
            int read = in.read(chunk);
            if (read < 0) {
                throw new EOFException("redis " + endpoint + " closed the connection");
            }
            reply.write(chunk, 0, read);
            byte[] bytes = reply.toByteArray();
            RespDecoder.Result result = RespDecoder.DEFAULT.decode(bytes, 0, bytes.length);
            if (result.isComplete()) {
                return Arrays.copyOf(bytes, result.consumed());
            }
        }
    }
}
