package io.ailb.emulator;

import java.nio.charset.StandardCharsets;

/**
 * A scripted answer to a {@code proxy_http_call}. Failures are values: {@link #timeout()} and {@link #reset()} reach
 * the guest as Envoy reports them, a callback with no headers and no body.
 */
public final class HttpCallAnswer {
    /** What reached the guest. */
    public enum Outcome {
        RESPONSE,
        TIMEOUT,
        RESET
    }

    private final Outcome outcome;
    private final HeaderMap headers;
    private final byte[] body;
    private final HeaderMap trailers;

    private HttpCallAnswer(Outcome outcome, HeaderMap headers, byte[] body, HeaderMap trailers) {
        this.outcome = outcome;
        this.headers = headers;
        this.body = body;
        this.trailers = trailers;
    }

    /** A response with {@code :status} set; add headers and a body with the {@code withX} methods. */
    public static HttpCallAnswer status(int status) {
        return new HttpCallAnswer(
                Outcome.RESPONSE, HeaderMap.of(":status", Integer.toString(status)), new byte[0], HeaderMap.empty());
    }

    /** The upstream did not answer within the call's timeout. */
    public static HttpCallAnswer timeout() {
        return new HttpCallAnswer(Outcome.TIMEOUT, HeaderMap.empty(), new byte[0], HeaderMap.empty());
    }

    /** The connection was reset before a response. */
    public static HttpCallAnswer reset() {
        return new HttpCallAnswer(Outcome.RESET, HeaderMap.empty(), new byte[0], HeaderMap.empty());
    }

    public HttpCallAnswer withHeader(String name, String value) {
        requireResponse();
        HeaderMap copy = headers.copy().add(name, value);
        return new HttpCallAnswer(outcome, copy, body, trailers);
    }

    public HttpCallAnswer withBody(String text) {
        return withBody(text.getBytes(StandardCharsets.UTF_8));
    }

    public HttpCallAnswer withBody(byte[] bytes) {
        requireResponse();
        return new HttpCallAnswer(outcome, headers, bytes.clone(), trailers);
    }

    public HttpCallAnswer withTrailer(String name, String value) {
        requireResponse();
        return new HttpCallAnswer(outcome, headers, body, trailers.copy().add(name, value));
    }

    public Outcome outcome() {
        return outcome;
    }

    HeaderMap headers() {
        return headers;
    }

    byte[] body() {
        return body;
    }

    HeaderMap trailers() {
        return trailers;
    }

    private void requireResponse() {
        if (outcome != Outcome.RESPONSE) {
            throw new IllegalStateException("a " + outcome + " carries no headers or body");
        }
    }
}
