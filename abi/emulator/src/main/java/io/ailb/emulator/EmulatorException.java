package io.ailb.emulator;

/** The emulator cannot do what was asked: a module it cannot link, a misuse of its API. */
public final class EmulatorException extends RuntimeException {
    public EmulatorException(String message) {
        super(message);
    }

    public EmulatorException(String message, Throwable cause) {
        super(message, cause);
    }
}
