package io.ailb.emulator;

import io.ailb.emulator.bindings.LogLevel;

/** One line the guest logged ({@code proxy_log}, or WASI stdout/stderr) with its {@link LogLevel} value. */
public record LogLine(int level, String message) {

    @Override
    public String toString() {
        return "[" + LogLevel.nameOf(level) + "] " + message;
    }
}
