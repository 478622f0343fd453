package io.ailb.proxywasm.testkit;

import java.util.AbstractMap.SimpleEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Header lists as proxy-wasm has them: ordered name/value pairs, a name may repeat. */
final class Pairs {
    private Pairs() {}

    static List<Map.Entry<String, String>> of(String... namesAndValues) {
        if (namesAndValues.length % 2 != 0) {
            throw new IllegalArgumentException("names and values must alternate: got an odd number of strings");
        }
        List<Map.Entry<String, String>> pairs = new ArrayList<>();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            pairs.add(new SimpleEntry<>(namesAndValues[i], namesAndValues[i + 1]));
        }
        return pairs;
    }

    /** A mutable copy whose entries the host may change in place. */
    static List<Map.Entry<String, String>> copy(List<Map.Entry<String, String>> pairs) {
        List<Map.Entry<String, String>> copy = new ArrayList<>(pairs.size());
        for (Map.Entry<String, String> pair : pairs) {
            copy.add(new SimpleEntry<>(pair.getKey(), pair.getValue()));
        }
        return copy;
    }

    static Optional<String> first(List<Map.Entry<String, String>> pairs, String name) {
        for (Map.Entry<String, String> pair : pairs) {
            if (pair.getKey().equals(name)) {
                return Optional.of(pair.getValue());
            }
        }
        return Optional.empty();
    }

    /** Envoy's replace: the first entry takes the value, later ones go; added when absent. */
    static void replace(List<Map.Entry<String, String>> pairs, String name, String value) {
        boolean replaced = false;
        for (int i = 0; i < pairs.size(); i++) {
            if (!pairs.get(i).getKey().equals(name)) {
                continue;
            }
            if (replaced) {
                pairs.remove(i--);
            } else {
                pairs.get(i).setValue(value);
                replaced = true;
            }
        }
        if (!replaced) {
            pairs.add(new SimpleEntry<>(name, value));
        }
    }

    static void remove(List<Map.Entry<String, String>> pairs, String name) {
        pairs.removeIf(pair -> pair.getKey().equals(name));
    }
}
