package io.ailb.emulator;

/** Answers the guest's HTTP calls by rule (MockWebServer's {@code Dispatcher}); the default answers from a queue. */
@FunctionalInterface
public interface HttpCallDispatcher {
    HttpCallAnswer dispatch(HttpCallRequest request);
}
