package io.ailb.teavm.runtime;

import org.teavm.backend.wasm.runtime.WasiBuffer;
import org.teavm.backend.wasm.wasi.LongResult;
import org.teavm.backend.wasm.wasi.Wasi;

/**
 * Guest-side replacement for {@code System.nanoTime()}: reads WASI's monotonic clock instead of TeaVM's
 * {@code teavm.nanoTime} import, which no proxy-wasm host provides. Only meaningful inside the Wasm module.
 */
public final class MonotonicClock {
    /** WASI {@code clockid::monotonic}. */
    private static final int CLOCK_MONOTONIC = 1;

    private MonotonicClock() {}

    public static long nanoTime() {
        // TeaVM's own scratch buffer for WASI out-parameters; it is not managed by the GC, so it cannot move.
        LongResult result = WasiBuffer.getBuffer().toStructure();
        if (Wasi.clockTimeGet(CLOCK_MONOTONIC, 1, result) != Wasi.ERRNO_SUCCESS) {
            return 0;
        }
        return result.value;
    }
}
