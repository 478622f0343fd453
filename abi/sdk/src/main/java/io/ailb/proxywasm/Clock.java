package io.ailb.proxywasm;

import io.ailb.proxywasm.internal.Vm;

/** Time and timers. */
public final class Clock {
    private Clock() {}

    /** Wall-clock milliseconds from the host (WASI {@code clock_time_get}). */
    public static long nowMillis() {
        return System.currentTimeMillis();
    }

    /** Calls {@link RootContext#onTick} of the current root context every {@code millis} ms; 0 stops it. */
    public static void setTickPeriodMillis(int millis) {
        Vm.abi().setTickPeriod(millis);
    }
}
