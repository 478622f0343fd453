package io.ailb.proxywasm;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The response to an {@link HttpCall}, read out of the host before the callback runs. */
public final class HttpCallResponse {
    private final int callId;
    private final List<Map.Entry<String, String>> headers;
    private final byte[] body;
    private final List<Map.Entry<String, String>> trailers;

    public HttpCallResponse(
            int callId,
            List<Map.Entry<String, String>> headers,
            byte[] body,
            List<Map.Entry<String, String>> trailers) {
        this.callId = callId;
        this.headers = headers;
        this.body = body;
        this.trailers = trailers;
    }

    public int callId() {
        return callId;
    }

    /** The host reports a failed call (timeout, reset, no healthy upstream) as a response without headers. */
    public boolean isFailure() {
        return headers.isEmpty();
    }

    public List<Map.Entry<String, String>> headers() {
        return headers;
    }

    /** The first header with this (lower-case) name. */
    public Optional<String> header(String name) {
        for (Map.Entry<String, String> header : headers) {
            if (header.getKey().equals(name)) {
                return Optional.of(header.getValue());
            }
        }
        return Optional.empty();
    }

    /** The {@code :status} header as a number; 0 when missing or malformed. */
    public int status() {
        Optional<String> status = header(":status");
        if (status.isEmpty()) {
            return 0;
        }
        try {
            return Integer.parseInt(status.get());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    public byte[] body() {
        return body;
    }

    public List<Map.Entry<String, String>> trailers() {
        return trailers;
    }
}
