package io.ailb.emulator;

/** The guest trapped (or a host call it made failed fatally); the VM is dead from then on, as in Envoy. */
public final class GuestTrapException extends RuntimeException {
    private final String export;

    GuestTrapException(String export, String message, Throwable cause) {
        super(message, cause);
        this.export = export;
    }

    /** The export the host was calling when the VM died. */
    public String export() {
        return export;
    }
}
