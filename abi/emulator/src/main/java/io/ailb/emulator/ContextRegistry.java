package io.ailb.emulator;

import io.ailb.emulator.bindings.WasmResult;
import java.util.HashMap;
import java.util.Map;

/**
 * The contexts of one VM. Root and stream contexts share one id sequence, as in Envoy; new streams belong to the
 * latest root context; the effective context is the one host calls act on (the callback's, or the one the guest chose
 * with {@code proxy_set_effective_context}).
 */
final class ContextRegistry {
    private final Map<Integer, HttpStream> streams = new HashMap<>();
    private final Map<String, byte[]> rootProperties = new HashMap<>();
    private int nextContextId = 1;
    private int rootContextId;
    private int effectiveContextId;

    /** A new root context, which new streams will belong to; returns its id. */
    int createRoot() {
        rootContextId = nextContextId++;
        return rootContextId;
    }

    /** The id of the next stream context. */
    int nextStreamId() {
        return nextContextId++;
    }

    void add(HttpStream stream) {
        streams.put(stream.contextId(), stream);
    }

    void remove(HttpStream stream) {
        streams.remove(stream.contextId());
    }

    int rootContextId() {
        return rootContextId;
    }

    /** Makes {@code contextId} effective for one guest call; returns the id to {@link #restore} afterwards. */
    int enter(int contextId) {
        int saved = effectiveContextId;
        effectiveContextId = contextId;
        return saved;
    }

    void restore(int savedContextId) {
        effectiveContextId = savedContextId;
    }

    /** {@code proxy_set_effective_context}: only a live stream or the current root context may be chosen. */
    int setEffectiveContext(int contextId) {
        if (contextId != rootContextId && !streams.containsKey(contextId)) {
            return WasmResult.BAD_ARGUMENT;
        }
        effectiveContextId = contextId;
        return WasmResult.OK;
    }

    /** The stream the effective context names, or null for the root context. */
    HttpStream currentStream() {
        return streams.get(effectiveContextId);
    }

    /** Properties the guest set outside any stream; streams read them too. */
    Map<String, byte[]> rootProperties() {
        return rootProperties;
    }
}
