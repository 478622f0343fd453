package io.ailb.lb.metrics;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Samples of a Prometheus text exposition, grouped by metric name. */
public final class MetricFamilies {
    private final Map<String, List<Sample>> byName;

    MetricFamilies(Map<String, List<Sample>> byName) {
        this.byName = Collections.unmodifiableMap(new LinkedHashMap<>(byName));
    }

    /** One series: its labels (in exposition order) and value (NaN and ±Infinity kept as such). */
    public static final class Sample {
        private final Map<String, String> labels;
        private final double value;

        Sample(Map<String, String> labels, double value) {
            this.labels = Collections.unmodifiableMap(labels);
            this.value = value;
        }

        public Map<String, String> labels() {
            return labels;
        }

        public double value() {
            return value;
        }
    }

    public boolean has(String name) {
        return byName.containsKey(name);
    }

    public List<Sample> samples(String name) {
        List<Sample> samples = byName.get(name);
        return samples == null ? Collections.emptyList() : samples;
    }

    /** Sum over the series of {@code name}, NaN series ignored; NaN when there is no non-NaN series. */
    public double sum(String name) {
        double total = 0;
        boolean any = false;
        for (Sample sample : samples(name)) {
            if (!Double.isNaN(sample.value)) {
                total += sample.value;
                any = true;
            }
        }
        return any ? total : Double.NaN;
    }

    /** Mean over the series of {@code name}, NaN series ignored; NaN when there is no non-NaN series. */
    public double mean(String name) {
        double total = 0;
        int count = 0;
        for (Sample sample : samples(name)) {
            if (!Double.isNaN(sample.value)) {
                total += sample.value;
                count++;
            }
        }
        return count == 0 ? Double.NaN : total / count;
    }

    /** The series of {@code name} with the largest value, or null. */
    public Sample largest(String name) {
        Sample best = null;
        for (Sample sample : samples(name)) {
            if (!Double.isNaN(sample.value) && (best == null || sample.value > best.value)) {
                best = sample;
            }
        }
        return best;
    }

    public boolean isEmpty() {
        return byName.isEmpty();
    }
}
