package io.ailb.proxywasm.testkit;

import java.nio.charset.StandardCharsets;
import java.util.AbstractMap.SimpleImmutableEntry;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * What the host hands back for one HTTP callout: a response, a failure (timeout, reset, no upstream: the guest sees a
 * response without headers), or nothing yet ({@link #pending()}). Immutable; {@code with*} return a copy.
 */
public final class HttpAnswer implements Callout.Answer {
    private static final HttpAnswer PENDING = new HttpAnswer(true, List.of(), new byte[0], List.of());
    private static final HttpAnswer FAILURE = new HttpAnswer(false, List.of(), new byte[0], List.of());

    private final boolean pending;
    private final List<Map.Entry<String, String>> headers;
    private final byte[] body;
    private final List<Map.Entry<String, String>> trailers;

    private HttpAnswer(
            boolean pending,
            List<Map.Entry<String, String>> headers,
            byte[] body,
            List<Map.Entry<String, String>> trailers) {
        this.pending = pending;
        this.headers = headers;
        this.body = body;
        this.trailers = trailers;
    }

    /** A response with this {@code :status} and no body. */
    public static HttpAnswer status(int status) {
        return new HttpAnswer(
                false,
                List.of(new SimpleImmutableEntry<>(":status", Integer.toString(status))),
                new byte[0],
                List.of());
    }

    /** The call failed before a response arrived. */
    public static HttpAnswer failure() {
        return FAILURE;
    }

    /** No answer yet: the callout waits until the test delivers one ({@link HttpCallout#deliver(HttpAnswer)}). */
    public static HttpAnswer pending() {
        return PENDING;
    }

    public HttpAnswer withHeader(String name, String value) {
        return new HttpAnswer(pending, append(headers, name, value), body, trailers);
    }

    public HttpAnswer withBody(String text) {
        return withBody(text.getBytes(StandardCharsets.UTF_8));
    }

    public HttpAnswer withBody(byte[] bytes) {
        return new HttpAnswer(pending, headers, bytes.clone(), trailers);
    }

    public HttpAnswer withTrailer(String name, String value) {
        return new HttpAnswer(pending, headers, body, append(trailers, name, value));
    }

    @Override
    public boolean isPending() {
        return pending;
    }

    public List<Map.Entry<String, String>> headers() {
        return headers;
    }

    public byte[] body() {
        return body.clone();
    }

    public List<Map.Entry<String, String>> trailers() {
        return trailers;
    }

    private static List<Map.Entry<String, String>> append(
            List<Map.Entry<String, String>> pairs, String name, String value) {
        List<Map.Entry<String, String>> copy = new ArrayList<>(pairs);
        copy.add(new SimpleImmutableEntry<>(name, value));
        return Collections.unmodifiableList(copy);
    }

    @Override
    public String toString() {
        if (pending) {
            return "pending";
        }
        return headers.isEmpty() ? "failure" : headers + " " + body.length + " body bytes";
    }
}
