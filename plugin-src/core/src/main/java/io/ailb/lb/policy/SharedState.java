package io.ailb.lb.policy;

/**
 * The gateway's shared data (proxy-wasm {@code proxy_get_shared_data} / {@code proxy_set_shared_data}): one store for
 * the VMs of all Envoy workers of a gateway, written with compare-and-swap. The shell implements it; policies use it
 * from {@link LoadBalancingPolicy#shareState} to pool what each VM measured.
 */
public interface SharedState {
    /** A stored value and the token to write it back with. */
    final class Value {
        private final byte[] bytes;
        private final int cas;

        public Value(byte[] bytes, int cas) {
            this.bytes = bytes;
            this.cas = cas;
        }

        public byte[] bytes() {
            return bytes;
        }

        public int cas() {
            return cas;
        }
    }

    /** This VM's name among the gateway's VMs: unique per VM, the same for the VM's life. */
    String vmId();

    /** The value of {@code key}; null when absent or unreadable. */
    Value get(String key);

    /**
     * Writes {@code key} if it is still at {@code cas} (0 when it did not exist); false when another VM wrote it since,
     * or the host refused.
     */
    boolean set(String key, byte[] value, int cas);
}
