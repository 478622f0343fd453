package io.ailb.emulator;

import io.ailb.emulator.bindings.WasmResult;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/** The gateway's shared key-value store with compare-and-swap, as cpp-host's {@code SharedData}. */
public final class SharedDataStore {
    /** A stored value and its CAS token. */
    public record Entry(byte[] value, int cas) {
        public String text() {
            return new String(value, StandardCharsets.UTF_8);
        }
    }

    private final Map<String, Entry> entries = new HashMap<>();
    private int nextCas = 1;

    SharedDataStore() {}

    public synchronized Optional<Entry> get(String key) {
        return Optional.ofNullable(entries.get(key));
    }

    /** Sets {@code key}; {@code cas} 0 writes unconditionally, otherwise it must equal the stored token. */
    public synchronized int set(String key, byte[] value, int cas) {
        Entry current = entries.get(key);
        if (cas != 0 && current != null && current.cas() != cas) {
            return WasmResult.CAS_MISMATCH;
        }
        entries.put(key, new Entry(value.clone(), takeCas()));
        return WasmResult.OK;
    }

    private int takeCas() {
        int cas = nextCas++;
        if (nextCas == 0) {
            nextCas = 1;
        }
        return cas;
    }
}
