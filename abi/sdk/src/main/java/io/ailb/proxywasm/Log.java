package io.ailb.proxywasm;

import io.ailb.proxywasm.bindings.LogLevel;
import io.ailb.proxywasm.internal.Vm;
import java.util.function.Supplier;

/** {@code proxy_log}: messages go to the host's log (Envoy: the wasm log of the filter). */
public final class Log {
    private Log() {}

    /** proxy-wasm log levels. */
    public enum Level {
        TRACE(LogLevel.TRACE),
        DEBUG(LogLevel.DEBUG),
        INFO(LogLevel.INFO),
        WARN(LogLevel.WARN),
        ERROR(LogLevel.ERROR),
        CRITICAL(LogLevel.CRITICAL);

        private final int code;

        Level(int code) {
            this.code = code;
        }

        public int code() {
            return code;
        }
    }

    public static void trace(String message) {
        log(Level.TRACE, message);
    }

    public static void debug(String message) {
        log(Level.DEBUG, message);
    }

    public static void info(String message) {
        log(Level.INFO, message);
    }

    public static void warn(String message) {
        log(Level.WARN, message);
    }

    public static void error(String message) {
        log(Level.ERROR, message);
    }

    public static void critical(String message) {
        log(Level.CRITICAL, message);
    }

    public static void log(Level level, String message) {
        Vm.abi().log(level.code(), message);
    }

    /** Builds the message only when the host would keep it. */
    public static void log(Level level, Supplier<String> message) {
        if (isEnabled(level)) {
            Vm.abi().log(level.code(), message.get());
        }
    }

    /** {@code proxy_get_log_level}: whether the host currently keeps messages at {@code level}. */
    public static boolean isEnabled(Level level) {
        return level.code() >= Vm.abi().logLevel();
    }
}
