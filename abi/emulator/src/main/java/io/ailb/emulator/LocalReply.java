package io.ailb.emulator;

import java.nio.charset.StandardCharsets;

/** A reply the filter sent with {@code proxy_send_local_response}, as Envoy would send it downstream. */
public record LocalReply(int status, String details, byte[] body, HeaderMap headers, int grpcStatus) {

    /** The body as UTF-8 text. */
    public String bodyText() {
        return new String(body, StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return status + " " + details + " " + headers + " " + bodyText();
    }
}
