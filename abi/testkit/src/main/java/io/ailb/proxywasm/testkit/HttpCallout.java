package io.ailb.proxywasm.testkit;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/** One {@code proxy_http_call} the guest made: the request, the call id it got, and the answer and its delivery. */
public final class HttpCallout {
    private final FakeHost host;
    private final int callId;
    private final String cluster;
    private final List<Map.Entry<String, String>> headers;
    private final byte[] body;
    private final List<Map.Entry<String, String>> trailers;
    private final int timeoutMillis;
    private final int rootContextId;
    private HttpAnswer answer = HttpAnswer.pending();
    private boolean delivered;

    HttpCallout(
            FakeHost host,
            int callId,
            String cluster,
            List<Map.Entry<String, String>> headers,
            byte[] body,
            List<Map.Entry<String, String>> trailers,
            int timeoutMillis,
            int rootContextId) {
        this.host = host;
        this.callId = callId;
        this.cluster = cluster;
        this.headers = List.copyOf(headers);
        this.body = body.clone();
        this.trailers = List.copyOf(trailers);
        this.timeoutMillis = timeoutMillis;
        this.rootContextId = rootContextId;
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

    /** The answer given so far; empty while it is pending. */
    public Optional<HttpAnswer> answer() {
        return answer.isPending() ? Optional.empty() : Optional.of(answer);
    }

    public boolean isDelivered() {
        return delivered;
    }

    /** Delivers the answer the responder gave (under {@link FakeHost#withManualDelivery()}). */
    public void deliver() {
        if (answer.isPending()) {
            throw new IllegalStateException("no answer to deliver for " + this + "; use deliver(HttpAnswer)");
        }
        host.deliver(this);
    }

    /** Delivers {@code response} now: the guest's callback runs before this returns. */
    public void deliver(HttpAnswer response) {
        if (response.isPending()) {
            throw new IllegalArgumentException("a pending answer cannot be delivered");
        }
        if (delivered) {
            throw new IllegalStateException(this + " was already delivered");
        }
        answer = response;
        host.deliver(this);
    }

    void answer(HttpAnswer given) {
        answer = given;
    }

    HttpAnswer currentAnswer() {
        return answer;
    }

    boolean deliverable() {
        return !delivered && !answer.isPending();
    }

    void markDelivered() {
        delivered = true;
    }

    int rootContextId() {
        return rootContextId;
    }

    @Override
    public String toString() {
        return "http call " + callId + " to " + cluster + " " + header(":path").orElse("") + " → " + answer;
    }
}
