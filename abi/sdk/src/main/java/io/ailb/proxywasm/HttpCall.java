package io.ailb.proxywasm;

import io.ailb.proxywasm.internal.Vm;
import java.util.List;
import java.util.Map;

/** {@code proxy_http_call}: an HTTP request to an Envoy cluster, answered later through a callback. */
public final class HttpCall {
    private HttpCall() {}

    /**
     * Sends the request; {@code headers} must include {@code :method}, {@code :path} and {@code :authority}. Returns the
     * call id. A stream that waits for the answer returns a Stop status and resumes with {@link Stream#continueRequest}.
     *
     * @throws ProxyWasmException e.g. BAD_ARGUMENT for an unknown cluster or missing pseudo-headers
     */
    public static int dispatch(
            String cluster,
            List<Map.Entry<String, String>> headers,
            byte[] body,
            List<Map.Entry<String, String>> trailers,
            int timeoutMillis,
            HttpCallCallback callback) {
        int callId = Vm.abi().httpCall(cluster, headers, body, trailers, timeoutMillis);
        Vm.dispatcher().expectHttpResponse(callId, callback);
        return callId;
    }
}
