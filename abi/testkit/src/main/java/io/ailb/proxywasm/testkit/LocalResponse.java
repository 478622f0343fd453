package io.ailb.proxywasm.testkit;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/** A reply the guest sent with {@code proxy_send_local_response} instead of forwarding the request. */
public record LocalResponse(
        int status, String details, byte[] body, List<Map.Entry<String, String>> headers, int grpcStatus) {

    public String bodyText() {
        return new String(body, StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return status + " " + details + " " + headers + " " + bodyText();
    }
}
