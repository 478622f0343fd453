package io.ailb.e2e;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * HTTP/1.1 to the gateway over a plain socket, one connection per request: the test chooses the route by the Host
 * header, which java.net.http does not let a caller set.
 */
final class HttpGateway {
    private static final int TIMEOUT_MILLIS = 60_000;

    private final String address;
    private final int port;

    HttpGateway(String address, int port) {
        this.address = address;
        this.port = port;
    }

    /** The reply, the instance that served it (x-served-by) and the gateway's request id (echoed by the backend). */
    record Reply(int status, Map<String, String> headers, String body) {
        String servedBy() {
            return headers.getOrDefault("x-served-by", "");
        }

        String requestId() {
            return headers.getOrDefault("x-request-id", "");
        }
    }

    /** POSTs a chat completion for {@code host}; the fake backend holds its reply {@code delayMillis}. */
    Reply chat(String host, String jsonBody, int delayMillis) {
        byte[] body = jsonBody.getBytes(StandardCharsets.UTF_8);
        String head = "POST /v1/chat/completions HTTP/1.1\r\n"
                + "Host: " + host + "\r\n"
                + "Content-Type: application/json\r\n"
                + "Content-Length: " + body.length + "\r\n"
                + "x-fake-delay-ms: " + delayMillis + "\r\n"
                + "Connection: close\r\n\r\n";
        try (Socket socket = new Socket(address, port)) {
            socket.setSoTimeout(TIMEOUT_MILLIS);
            OutputStream out = socket.getOutputStream();
            out.write(head.getBytes(StandardCharsets.US_ASCII));
            out.write(body);
            out.flush();
            return parse(socket.getInputStream().readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException("POST to " + host + " via " + address + ":" + port, e);
        }
    }

    private static Reply parse(byte[] raw) {
        // one char per byte, so chunk sizes count characters; the body is decoded as UTF-8 at the end
        String text = new String(raw, StandardCharsets.ISO_8859_1);
        int end = text.indexOf("\r\n\r\n");
        if (end < 0) {
            throw new IllegalStateException("not an HTTP reply: " + text);
        }
        String[] lines = text.substring(0, end).split("\r\n");
        int status = Integer.parseInt(lines[0].split(" ")[1]);
        Map<String, String> headers = new TreeMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            headers.put(
                    lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
                    lines[i].substring(colon + 1).trim());
        }
        String body = text.substring(end + 4);
        if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            body = dechunk(body);
        }
        return new Reply(
                status, headers, new String(body.getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8));
    }

    private static String dechunk(String chunked) {
        StringBuilder body = new StringBuilder();
        int at = 0;
        while (true) {
            int lineEnd = chunked.indexOf("\r\n", at);
            int size = Integer.parseInt(
                    chunked.substring(at, lineEnd).split(";")[0].trim(), 16);
            if (size == 0) {
                return body.toString();
            }
            body.append(chunked, lineEnd + 2, lineEnd + 2 + size);
            at = lineEnd + 2 + size + 2;
        }
    }
}
