package io.ailb.emulator;

/**
 * The HTTP calls of one VM ({@code proxy_http_call}): ids 4, 8, …; the gateway answers each at once (queue or
 * dispatcher) and the answer is queued for delivery to the root context.
 */
final class HttpCallouts {
    private final Gateway gateway;
    private final ContextRegistry contexts;
    private final DeliveryQueue deliveries;
    private final GuestRuntime runtime;
    private int lastCallId;
    /** The response maps and body, only while {@code proxy_on_http_call_response} runs. */
    private HttpCallAnswer responseInDelivery;

    HttpCallouts(Gateway gateway, ContextRegistry contexts, DeliveryQueue deliveries, GuestRuntime runtime) {
        this.gateway = gateway;
        this.contexts = contexts;
        this.deliveries = deliveries;
        this.runtime = runtime;
    }

    /** Records the call, gets its answer and queues the delivery; returns the call id. */
    int call(String cluster, HeaderMap headers, byte[] body, HeaderMap trailers, int timeoutMillis) {
        lastCallId += 4;
        int callId = lastCallId;
        int root = contexts.rootContextId();
        HttpCallRequest request = new HttpCallRequest(callId, cluster, headers, body, trailers, timeoutMillis);
        HttpCallAnswer response = gateway.answer(request);
        deliveries.addReply("http call " + callId, () -> deliver(root, callId, response));
        return callId;
    }

    private void deliver(int root, int callId, HttpCallAnswer response) {
        responseInDelivery = response;
        try {
            runtime.invoke("proxy_on_http_call_response", root, () -> {
                runtime.exports()
                        .proxyOnHttpCallResponse(
                                root,
                                callId,
                                response.headers().size(),
                                response.body().length,
                                response.trailers().size());
                return 0;
            });
        } finally {
            responseInDelivery = null;
        }
    }

    /** The response being delivered, or null outside {@code proxy_on_http_call_response}. */
    HttpCallAnswer responseInDelivery() {
        return responseInDelivery;
    }
}
