package io.ailb.codec.json;

/** Malformed or over-deep JSON: {@code position} is the byte offset (relative to the parsed range) of the fault. */
public final class JsonException extends RuntimeException {
    private final int position;
    private final String reason;

    public JsonException(int position, String reason) {
        super("invalid JSON at byte " + position + ": " + reason);
        this.position = position;
        this.reason = reason;
    }

    public int position() {
        return position;
    }

    public String reason() {
        return reason;
    }
}
