package io.ailb.emulator;

import io.ailb.codec.map.ProxyMaps;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * An ordered header (or trailer) map as Envoy keeps it: duplicate keys allowed, names compared case-insensitively.
 * Mutable; the emulator hands out the stream's live maps, so tests see the guest's edits.
 */
public final class HeaderMap {
    private final List<Map.Entry<String, String>> entries = new ArrayList<>();

    private HeaderMap() {}

    /** An empty map. */
    public static HeaderMap empty() {
        return new HeaderMap();
    }

    /** A map of {@code name, value, name, value, …}. */
    public static HeaderMap of(String... namesAndValues) {
        if (namesAndValues.length % 2 != 0) {
            throw new IllegalArgumentException("expected name/value pairs, got " + namesAndValues.length + " strings");
        }
        HeaderMap map = new HeaderMap();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            map.add(namesAndValues[i], namesAndValues[i + 1]);
        }
        return map;
    }

    /** A copy of {@code pairs}, in order. */
    public static HeaderMap copyOf(List<Map.Entry<String, String>> pairs) {
        HeaderMap map = new HeaderMap();
        for (Map.Entry<String, String> pair : pairs) {
            map.add(pair.getKey(), pair.getValue());
        }
        return map;
    }

    /** Decodes the proxy-wasm map serialisation. */
    static HeaderMap decode(byte[] serialized) {
        return copyOf(ProxyMaps.decode(serialized, 0, serialized.length));
    }

    /** The proxy-wasm map serialisation of this map. */
    byte[] encode() {
        return ProxyMaps.encode(entries);
    }

    /** Appends a value (an existing one with the same name stays). */
    public HeaderMap add(String name, String value) {
        entries.add(Map.entry(name, value));
        return this;
    }

    /** Sets the first entry named {@code name} to {@code value} and drops the others, or appends it. */
    public HeaderMap replace(String name, String value) {
        int first = indexOf(name);
        if (first < 0) {
            return add(name, value);
        }
        entries.set(first, Map.entry(entries.get(first).getKey(), value));
        for (int i = entries.size() - 1; i > first; i--) {
            if (entries.get(i).getKey().equalsIgnoreCase(name)) {
                entries.remove(i);
            }
        }
        return this;
    }

    /** Removes every entry named {@code name}. */
    public HeaderMap remove(String name) {
        entries.removeIf(entry -> entry.getKey().equalsIgnoreCase(name));
        return this;
    }

    /** Replaces all entries. */
    void setAll(HeaderMap other) {
        entries.clear();
        entries.addAll(other.entries);
    }

    /** The first value named {@code name}. */
    public Optional<String> get(String name) {
        int index = indexOf(name);
        return index < 0 ? Optional.empty() : Optional.of(entries.get(index).getValue());
    }

    /** All entries in order (read-only view). */
    public List<Map.Entry<String, String>> pairs() {
        return Collections.unmodifiableList(entries);
    }

    public int size() {
        return entries.size();
    }

    /** A detached copy. */
    public HeaderMap copy() {
        return copyOf(entries);
    }

    private int indexOf(String name) {
        for (int i = 0; i < entries.size(); i++) {
            if (entries.get(i).getKey().equalsIgnoreCase(name)) {
                return i;
            }
        }
        return -1;
    }

    @Override
    public String toString() {
        return entries.toString();
    }
}
