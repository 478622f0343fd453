package io.ailb.hostkit;

import java.util.ArrayList;
import java.util.List;

/** One metric as Envoy's stats store keeps it: counters only go up, gauges are set or moved, histograms keep samples. */
public final class HostMetric {
    /** proxy-wasm {@code MetricType} values; the hosts' generated bindings name them too. */
    public static final int COUNTER = 0;

    public static final int GAUGE = 1;
    public static final int HISTOGRAM = 2;

    private final int type;
    private long value;
    private final List<Long> samples = new ArrayList<>();

    public HostMetric(int type) {
        this.type = type;
    }

    public int type() {
        return type;
    }

    public boolean isHistogram() {
        return type == HISTOGRAM;
    }

    /** {@code proxy_increment_metric}: false, and no change, for a histogram or a counter going down. */
    public boolean increment(long delta) {
        if (type == HISTOGRAM || (type == COUNTER && delta < 0)) {
            return false;
        }
        value += delta;
        return true;
    }

    /** {@code proxy_record_metric}: a counter adds, a gauge is set, a histogram keeps the sample. */
    public void record(long recorded) {
        switch (type) {
            case COUNTER -> value += recorded;
            case GAUGE -> value = recorded;
            default -> samples.add(recorded);
        }
    }

    /** A counter's or gauge's value. */
    public long value() {
        return value;
    }

    /** A histogram's samples, in order. */
    public List<Long> samples() {
        return List.copyOf(samples);
    }
}
