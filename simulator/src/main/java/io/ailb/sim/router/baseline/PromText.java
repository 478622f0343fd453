package io.ailb.sim.router.baseline;

import java.util.Optional;
import java.util.OptionalDouble;

/** Reads one metric out of Prometheus text exposition, as a scraper would. */
final class PromText {
    private PromText() {}

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
            if (rest < line.length()
                    && line.charAt(rest) != '{'
                    && line.charAt(rest) != ' '
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

    /**
     * The value of label {@code label} on the first sample of metric {@code name} (an info metric such as
     * {@code vllm:cache_config_info{block_size="16",num_gpu_blocks="62500"} 1}); empty when absent.
     */
    static Optional<String> label(String text, String name, String label) {
        if (text == null) {
            return Optional.empty();
        }
        for (String raw : text.split("\n")) {
            String line = raw.strip();
            if (!line.startsWith(name + "{")) {
                continue;
            }
            int close = line.lastIndexOf('}');
            String labels = close < 0 ? "" : line.substring(name.length() + 1, close);
            String key = label + "=\"";
            int at = labels.indexOf(key);
            while (at > 0 && labels.charAt(at - 1) != ',' && labels.charAt(at - 1) != ' ') {
                at = labels.indexOf(key, at + 1);
            }
            if (at < 0) {
                return Optional.empty();
            }
            int from = at + key.length();
            int to = labels.indexOf('"', from);
            return to < 0 ? Optional.empty() : Optional.of(labels.substring(from, to));
        }
        return Optional.empty();
    }
}
