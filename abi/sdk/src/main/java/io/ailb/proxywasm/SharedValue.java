package io.ailb.proxywasm;

/** A value read from VM-wide shared data together with the CAS token to write it back with. */
public final class SharedValue {
    private final byte[] value;
    private final int cas;

    public SharedValue(byte[] value, int cas) {
        this.value = value;
        this.cas = cas;
    }

    public byte[] value() {
        return value;
    }

    public int cas() {
        return cas;
    }
}
