package io.ailb.teavm.runtime;

import java.util.HashMap;
import java.util.Map;

/** Guest-side implementation of {@code String.intern()}, which TeaVM's Wasm backend leaves unimplemented. */
public final class InternPool {
    private static final Map<String, String> POOL = new HashMap<>();

    private InternPool() {}

    public static String intern(String value) {
        String canonical = POOL.putIfAbsent(value, value);
        return canonical != null ? canonical : value;
    }
}
