package io.ailb.proxywasm.testkit;

/**
 * Answers the HTTP callouts ({@code proxy_http_call}) of a {@link FakeHost}, called when the guest makes the call; the
 * answer reaches the guest after its current callback has returned. The default leaves every call pending.
 */
@FunctionalInterface
public interface HttpResponder {
    HttpAnswer answer(HttpCallout call);
}
