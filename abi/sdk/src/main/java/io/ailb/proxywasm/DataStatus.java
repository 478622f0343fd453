package io.ailb.proxywasm;

import io.ailb.proxywasm.bindings.DataAction;

/** What a body callback tells the host (Envoy's FilterDataStatus). */
public enum DataStatus {
    CONTINUE(DataAction.CONTINUE),
    /** Keep buffering; the next callback sees the whole body so far. */
    STOP_ITERATION_AND_BUFFER(DataAction.STOP_ITERATION_AND_BUFFER),
    STOP_ITERATION_AND_WATERMARK(DataAction.STOP_ITERATION_AND_WATERMARK),
    STOP_ITERATION_NO_BUFFER(DataAction.STOP_ITERATION_NO_BUFFER);

    private final int code;

    DataStatus(int code) {
        this.code = code;
    }

    /** The ABI value ({@link DataAction}). */
    public int code() {
        return code;
    }
}
