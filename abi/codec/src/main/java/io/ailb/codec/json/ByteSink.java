package io.ailb.codec.json;

/** Receives bytes in chunks, e.g. an incremental hash's {@code update}. */
@FunctionalInterface
public interface ByteSink {
    void write(byte[] bytes, int offset, int length);
}
