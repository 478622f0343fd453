package io.ailb.lb.config;

import java.util.Collection;
import java.util.List;
import java.util.Locale;

/**
 * Warnings for fields nobody reads. wasm-go ignores unknown fields, so refusing them would break configs that work
 * there; a warning naming the closest known field still catches typos such as {@code lb_polcy} or
 * {@code redisKeyTtl}.
 */
public final class UnknownFields {
    /** Longer names are cut in messages and compared only this far, so a huge key costs bounded work. */
    private static final int MAX_NAME_CHARS = 64;

    private UnknownFields() {}

    /**
     * Adds one warning to {@code warnings} for each field of {@code view} whose name is not in {@code known}.
     * {@code where} says where the field was, e.g. "at the top level" or "in lb_config of prefix_cache".
     */
    public static void check(ConfigView view, Collection<String> known, String where, List<String> warnings) {
        for (String field : view.fields()) {
            if (!known.contains(field)) {
                String closest = closest(field, known);
                warnings.add(view.fieldPath(cut(field)) + ": unknown field " + where + ", ignored"
                        + (closest == null ? "" : "; closest known field: " + closest));
            }
        }
    }

    /** Adds the names of {@code fields} to {@code names}. */
    public static void addNames(Collection<String> names, List<ConfigField> fields) {
        for (ConfigField field : fields) {
            names.add(field.name());
        }
    }

    /** The known name nearest to {@code name} by case-insensitive edit distance (the first on ties), or null. */
    static String closest(String name, Collection<String> known) {
        String lowered = cut(name).toLowerCase(Locale.ROOT);
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String candidate : known) {
            int distance = editDistance(lowered, candidate.toLowerCase(Locale.ROOT));
            if (distance < bestDistance) {
                best = candidate;
                bestDistance = distance;
            }
        }
        return best;
    }

    /** Levenshtein distance: insertions, deletions and substitutions each cost 1. */
    static int editDistance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }

    private static String cut(String name) {
        return name.length() > MAX_NAME_CHARS ? name.substring(0, MAX_NAME_CHARS) + "..." : name;
    }
}
