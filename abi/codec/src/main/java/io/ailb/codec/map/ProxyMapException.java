package io.ailb.codec.map;

/** Serialized proxy-wasm map that is truncated or inconsistent, with the absolute byte offset of the problem. */
public final class ProxyMapException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int offset;

    public ProxyMapException(int offset, String reason) {
        super("malformed proxy-wasm map at byte " + offset + ": " + reason);
        this.offset = offset;
    }

    public int offset() {
        return offset;
    }
}
