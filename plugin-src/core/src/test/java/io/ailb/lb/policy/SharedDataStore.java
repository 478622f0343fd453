package io.ailb.lb.policy;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * A gateway's shared data for tests: values with CAS tokens, as proxy-wasm's, one {@link SharedState} per VM;
 * {@code conflicts} writes fail as if another VM had won the race.
 */
public final class SharedDataStore {
    public final Map<String, SharedState.Value> values = new HashMap<>();
    public int conflicts;
    public int nextCas = 1;

    /** The store as the VM named {@code id} sees it. */
    public SharedState vm(String id) {
        return new SharedState() {
            @Override
            public String vmId() {
                return id;
            }

            @Override
            public Value get(String key) {
                return values.get(key);
            }

            @Override
            public boolean set(String key, byte[] value, int cas) {
                Value current = values.get(key);
                if (conflicts > 0) {
                    conflicts--;
                    values.put(key, new Value(current == null ? new byte[0] : current.bytes(), nextCas++));
                    return false;
                }
                // As proxy-wasm's: CAS 0 writes whatever is there.
                if (cas != 0 && (current == null ? 0 : current.cas()) != cas) {
                    return false;
                }
                values.put(key, new Value(value.clone(), nextCas++));
                return true;
            }
        };
    }

    /** Writes {@code key} as a VM that knows nothing of the others would. */
    public void put(String key, byte[] value) {
        values.put(key, new SharedState.Value(value, nextCas++));
    }

    /** The value of {@code key} as UTF-8 text. */
    public String text(String key) {
        return new String(values.get(key).bytes(), StandardCharsets.UTF_8);
    }
}
