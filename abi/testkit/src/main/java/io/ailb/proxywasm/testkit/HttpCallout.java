package io.ailb.proxywasm.testkit;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/** One {@code proxy_http_call} the guest made: the request, the call id it got, and the answer and its delivery. */
public final class HttpCallout extends Callout<HttpAnswer> {
    private final int callId;
    private final String cluster;
    private final List<Map.Entry<String, String>> headers;
    private final byte[] body;
    private final List<Map.Entry<String, String>> trailers;
    private final int timeoutMillis;

    HttpCallout(
            FakeHost host,
            int callId,
            String cluster,
            List<Map.Entry<String, String>> headers,
            byte[] body,
            List<Map.Entry<String, String>> trailers,
            int timeoutMillis,
            int rootContextId) {
        super(host, rootContextId, HttpAnswer.pending());
        this.callId = callId;
        this.cluster = cluster;
        this.headers = List.copyOf(headers);
        this.body = body.clone();
        this.trailers = List.copyOf(trailers);
        this.timeoutMillis = timeoutMillis;
    }

    public int callId() {
        return callId;
    }

    public String cluster() {
        return cluster;
    }

    public List<Map.Entry<String, String>> headers() {
        return headers;
    }

    /** The first request header with this name, e.g. {@code :path}. */
    public Optional<String> header(String name) {
        return Pairs.first(headers, name);
    }

    public byte[] body() {
        return body.clone();
    }

    public List<Map.Entry<String, String>> trailers() {
        return trailers;
    }

    public int timeoutMillis() {
        return timeoutMillis;
    }

    @Override
    public String toString() {
        return "http call " + callId + " to " + cluster + " " + header(":path").orElse("") + " → " + currentAnswer();
    }
}
