package io.ailb.proxywasm;

import io.ailb.proxywasm.bindings.StreamType;
import io.ailb.proxywasm.internal.Vm;
import java.util.List;
import java.util.Map;

/**
 * Flow control of the current stream. The host applies these after the running callback returns.
 */
public final class Stream {
    /** {@code grpc_status} value meaning "not a gRPC reply". */
    public static final int NO_GRPC_STATUS = -1;

    private Stream() {}

    /** Resumes a request paused by a Stop status (e.g. after a Redis or HTTP callout answered). */
    public static void continueRequest() {
        Vm.abi().continueStream(StreamType.HTTP_REQUEST);
    }

    public static void continueResponse() {
        Vm.abi().continueStream(StreamType.HTTP_RESPONSE);
    }

    public static void closeRequest() {
        Vm.abi().closeStream(StreamType.HTTP_REQUEST);
    }

    public static void closeResponse() {
        Vm.abi().closeStream(StreamType.HTTP_RESPONSE);
    }

    /**
     * Answers the request locally instead of forwarding it. The response still passes this filter's response
     * callbacks. {@code details} ends up in Envoy's response-code details.
     */
    public static void sendLocalResponse(
            int statusCode, String details, byte[] body, List<Map.Entry<String, String>> headers) {
        Vm.abi().sendLocalResponse(statusCode, details, body, headers, NO_GRPC_STATUS);
    }

    /** {@link #sendLocalResponse(int, String, byte[], List)} without details or extra headers. */
    public static void sendLocalResponse(int statusCode, byte[] body) {
        sendLocalResponse(statusCode, "", body, List.of());
    }
}
