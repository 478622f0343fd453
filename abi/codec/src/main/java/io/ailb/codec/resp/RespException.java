package io.ailb.codec.resp;

/** Malformed RESP input (or input beyond the decoder's limits), with the absolute byte offset where it was found. */
public final class RespException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int offset;

    public RespException(int offset, String reason) {
        super("malformed RESP at byte " + offset + ": " + reason);
        this.offset = offset;
    }

    /** Index into the decoded buffer (not relative to the start offset) of the offending byte. */
    public int offset() {
        return offset;
    }
}
