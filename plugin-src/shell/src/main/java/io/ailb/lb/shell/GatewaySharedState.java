package io.ailb.lb.shell;

import io.ailb.lb.policy.SharedState;
import io.ailb.proxywasm.Log;
import io.ailb.proxywasm.ProxyWasmException;
import io.ailb.proxywasm.SharedData;
import io.ailb.proxywasm.SharedValue;
import java.util.Optional;

/** {@link SharedState} over the proxy-wasm shared data of the gateway's VMs. */
final class GatewaySharedState implements SharedState {
    private final String vmId;

    GatewaySharedState(String vmId) {
        this.vmId = vmId;
    }

    @Override
    public String vmId() {
        return vmId;
    }

    @Override
    public Value get(String key) {
        try {
            Optional<SharedValue> value = SharedData.get(key);
            return value.map(v -> new Value(v.value(), v.cas())).orElse(null);
        } catch (ProxyWasmException e) {
            Log.debug("ai-load-balancer: shared data " + key + " not read: " + e.getMessage());
            return null;
        }
    }

    @Override
    public boolean set(String key, byte[] value, int cas) {
        try {
            return SharedData.set(key, value, cas);
        } catch (ProxyWasmException e) {
            Log.debug("ai-load-balancer: shared data " + key + " not written: " + e.getMessage());
            return false;
        }
    }
}
