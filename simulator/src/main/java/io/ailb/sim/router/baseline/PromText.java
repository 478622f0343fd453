package io.ailb.sim.router.baseline;

import java.util.OptionalDouble;

/** Reads one metric out of Prometheus text exposition, as a scraper would. */
final class PromText {
    private PromText() {
    }

    /**
     * The sum of every sample of metric {@code name} (any labels) in {@code text}; empty when the text is null or has
     * no such sample. Comment lines, other metrics, a metric whose name merely starts with {@code name} and unparsable
     * values are skipped.
     */
    static OptionalDouble sum(String text, String name) {
        if (text == null || text.isEmpty()) {
            return OptionalDouble.empty();
        }
        double sum = 0;
        boolean found = false;
        for (String raw : text.split("\n")) {
            String line = raw.strip();
            if (line.isEmpty() || line.startsWith("#") || !line.startsWith(name)) {
                continue;
            }
            int rest = name.length();
            if (rest < line.length() && line.charAt(rest) != '{' && line.charAt(rest) != ' '
                    && line.charAt(rest) != '\t') {
                continue;
            }
            int valueStart = rest;
            if (rest < line.length() && line.charAt(rest) == '{') {
                int close = line.lastIndexOf('}');
                if (close < 0) {
                    continue;
                }
                valueStart = close + 1;
            }
            String[] parts = line.substring(valueStart).strip().split("\\s+");
            if (parts.length == 0 || parts[0].isEmpty()) {
                continue;
            }
            try {
                double v = Double.parseDouble(parts[0]);
                if (!Double.isNaN(v)) {
                    sum += v;
                    found = true;
                }
            } catch (NumberFormatException e) {
                // not a sample line of this metric
            }
        }
        return found ? OptionalDouble.of(sum) : OptionalDouble.empty();
    }
}
