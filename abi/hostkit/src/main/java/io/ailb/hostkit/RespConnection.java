package io.ailb.hostkit;

import io.ailb.codec.resp.RespDecoder;
import io.ailb.codec.resp.RespValue;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Arrays;

/**
 * One blocking RESP connection to a Redis server, opened on first use and again after a failure, so a server that
 * died and came back is reached by the next call. Every network failure is an {@link UncheckedIOException}.
 */
public final class RespConnection implements AutoCloseable {
    private static final int TIMEOUT_MILLIS = 10_000;

    private final String host;
    private final int port;
    private Socket socket;
    private OutputStream out;
    private InputStream in;
    private byte[] buffer = new byte[8192];
    private int filled;

    public RespConnection(String host, int port) {
        this.host = host;
        this.port = port;
    }

    /** Sends one encoded command and reads its reply. */
    public RespValue send(byte[] request) {
        try {
            if (socket == null) {
                open();
            }
            out.write(request);
            out.flush();
            return readReply();
        } catch (IOException e) {
            close();
            throw new UncheckedIOException("redis " + host + ":" + port + ": " + e.getMessage(), e);
        }
    }

    private void open() throws IOException {
        Socket opened = new Socket();
        try {
            opened.connect(new InetSocketAddress(host, port), TIMEOUT_MILLIS);
            opened.setSoTimeout(TIMEOUT_MILLIS);
        } catch (IOException e) {
            opened.close();
            throw e;
        }
        socket = opened;
        out = opened.getOutputStream();
        in = opened.getInputStream();
        filled = 0;
    }

    private RespValue readReply() throws IOException {
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
                throw new IOException("the server closed the connection");
            }
            filled += n;
        }
    }

    @Override
    public void close() {
        if (socket == null) {
            return;
        }
        try {
            socket.close();
        } catch (IOException e) {
            // Nothing is left to release: the socket is gone either way.
        }
        socket = null;
    }
}
