package io.ailb.emulator;

import java.nio.charset.StandardCharsets;

/**
 * A scripted answer to a {@code proxy_http_call}. Failures are values: {@link #timeout()} and {@link #reset()} reach
 * the guest as Envoy reports them, a callback with no headers and no body.
 */
public final class HttpCallResponse {
    /** What reached the guest. */
    public enum Outcome { RESPONSE, TIMEOUT, RESET }

    private final Outcome outcome;
    private final HeaderMap headers;
    private final byte[] body;
    private final HeaderMap trailers;

    private HttpCallResponse(Outcome outcome, HeaderMap headers, byte[] body, HeaderMap trailers) {
        this.outcome = outcome;
        this.headers = headers;
        this.body = body;
        this.trailers = trailers;
    }

    /** A response with {@code :status} set; add headers and a body with the {@code withX} methods. */
    public static HttpCallResponse status(int status) {
        return new HttpCallResponse(Outcome.RESPONSE, HeaderMap.of(":status", Integer.toString(status)), new byte[0],
                HeaderMap.empty());
    }

    /** The upstream did not answer within the call's timeout. */
    public static HttpCallResponse timeout() {
        return new HttpCallResponse(Outcome.TIMEOUT, HeaderMap.empty(), new byte[0], HeaderMap.empty());
    }

    /** The connection was reset before a response. */
    public static HttpCallResponse reset() {
        return new HttpCallResponse(Outcome.RESET, HeaderMap.empty(), new byte[0], HeaderMap.empty());
    }

    public HttpCallResponse withHeader(String name, String value) {
        requireResponse();
        HeaderMap copy = headers.copy().add(name, value);
        return new HttpCallResponse(outcome, copy, body, trailers);
    }

    public HttpCallResponse withBody(String text) {
        return withBody(text.getBytes(StandardCharsets.UTF_8));
    }

    public HttpCallResponse withBody(byte[] bytes) {
        requireResponse();
        return new HttpCallResponse(outcome, headers, bytes.clone(), trailers);
    }

    public HttpCallResponse withTrailer(String name, String value) {
        requireResponse();
        return new HttpCallResponse(outcome, headers, body, trailers.copy().add(name, value));
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
