package io.ailb.proxywasm;

import io.ailb.proxywasm.bindings.HeaderAction;

/** What a headers or trailers callback tells the host (Envoy's FilterHeadersStatus, as Higress exposes it). */
public enum HeaderStatus {
    CONTINUE(HeaderAction.CONTINUE),
    /** Hold the headers; body callbacks still arrive under ABI 0.2.100 (request side only). */
    STOP_ITERATION(HeaderAction.STOP_ITERATION),
    CONTINUE_AND_END_STREAM(HeaderAction.CONTINUE_AND_END_STREAM),
    STOP_ALL_ITERATION_AND_BUFFER(HeaderAction.STOP_ALL_ITERATION_AND_BUFFER),
    STOP_ALL_ITERATION_AND_WATERMARK(HeaderAction.STOP_ALL_ITERATION_AND_WATERMARK);

    private final int code;

    HeaderStatus(int code) {
        this.code = code;
    }

    /** The ABI value ({@link HeaderAction}). */
    public int code() {
        return code;
    }
}
