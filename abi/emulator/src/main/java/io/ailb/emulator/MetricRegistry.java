package io.ailb.emulator;

import io.ailb.emulator.bindings.MetricType;
import io.ailb.emulator.bindings.WasmResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The gateway's metrics (shared by its VMs, as Envoy's stats store is), readable by name. Counters only go up,
 * gauges are set or moved, histograms keep every recorded value.
 */
public final class MetricRegistry {
    private final Map<String, Metric> byName = new LinkedHashMap<>();

    MetricRegistry() {}

    private static final class Metric {
        final int type;
        long value;
        final List<Long> samples = new ArrayList<>();

        Metric(int type) {
            this.type = type;
        }
    }

    synchronized void define(int type, String name) {
        Metric existing = byName.get(name);
        if (existing == null) {
            byName.put(name, new Metric(type));
        } else if (existing.type != type) {
            throw new EmulatorException("metric " + name + " defined as " + MetricType.nameOf(type) + " but it is a "
                    + MetricType.nameOf(existing.type));
        }
    }

    synchronized int increment(String name, long delta) {
        Metric metric = byName.get(name);
        if (metric.type == MetricType.HISTOGRAM || (metric.type == MetricType.COUNTER && delta < 0)) {
            return WasmResult.BAD_ARGUMENT;
        }
        metric.value += delta;
        return WasmResult.OK;
    }

    synchronized int record(String name, long value) {
        Metric metric = byName.get(name);
        switch (metric.type) {
            case MetricType.COUNTER -> metric.value += value;
            case MetricType.GAUGE -> metric.value = value;
            default -> metric.samples.add(value);
        }
        return WasmResult.OK;
    }

    /** The value of a counter or gauge; histograms have none. */
    synchronized Optional<Long> read(String name) {
        Metric metric = byName.get(name);
        return metric.type == MetricType.HISTOGRAM ? Optional.empty() : Optional.of(metric.value);
    }

    /** The value of counter or gauge {@code name}. */
    public synchronized long value(String name) {
        Metric metric = require(name);
        if (metric.type == MetricType.HISTOGRAM) {
            throw new EmulatorException(name + " is a histogram; use samples()");
        }
        return metric.value;
    }

    /** Every value recorded on histogram {@code name}, in order. */
    public synchronized List<Long> samples(String name) {
        return List.copyOf(require(name).samples);
    }

    /** Names of every defined metric. */
    public synchronized List<String> names() {
        return List.copyOf(byName.keySet());
    }

    private Metric require(String name) {
        Metric metric = byName.get(name);
        if (metric == null) {
            throw new EmulatorException("no metric " + name + "; defined: " + byName.keySet());
        }
        return metric;
    }
}
