package io.ailb.proxywasm;

import io.ailb.proxywasm.internal.Vm;
import java.util.Optional;

/** VM-wide key/value data shared by all workers' VMs of the same vm_id, with compare-and-swap writes. */
public final class SharedData {
    private SharedData() {}

    /** The value and its CAS token; empty when the key does not exist. */
    public static Optional<SharedValue> get(String key) {
        return Optional.ofNullable(Vm.abi().getSharedData(key));
    }

    /**
     * Writes the value if the key is still at {@code cas} (the token from {@link #get}; 0 writes unconditionally).
     *
     * @return false when someone else wrote it since (CAS_MISMATCH)
     */
    public static boolean set(String key, byte[] value, int cas) {
        return Vm.abi().setSharedData(key, value, cas);
    }
}
