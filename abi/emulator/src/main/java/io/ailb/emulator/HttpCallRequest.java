package io.ailb.emulator;

import java.nio.charset.StandardCharsets;

/** A {@code proxy_http_call} the guest made, recorded for {@link Gateway#takeHttpCall()} and dispatchers. */
public record HttpCallRequest(
        int callId, String cluster, HeaderMap headers, byte[] body, HeaderMap trailers, int timeoutMillis) {

    public String bodyText() {
        return new String(body, StandardCharsets.UTF_8);
    }
}
