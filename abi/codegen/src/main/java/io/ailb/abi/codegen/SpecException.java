package io.ailb.abi.codegen;

/** The ABI spec is malformed; the message names the offending entry. */
public final class SpecException extends Exception {
    private static final long serialVersionUID = 1L;

    public SpecException(String message) {
        super(message);
    }

    public SpecException(String message, Throwable cause) {
        super(message, cause);
    }
}
