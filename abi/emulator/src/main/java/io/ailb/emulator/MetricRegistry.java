package io.ailb.emulator;

import io.ailb.emulator.bindings.MetricType;
import io.ailb.emulator.bindings.WasmResult;
import io.ailb.hostkit.HostMetric;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The gateway's metrics (shared by its VMs, as Envoy's stats store is), readable by name. Counters only go up,
 * gauges are set or moved, histograms keep every recorded value.
 */
public final class MetricRegistry {
    private final Map<String, HostMetric> byName = new LinkedHashMap<>();

    MetricRegistry() {}

    synchronized void define(int type, String name) {
        HostMetric existing = byName.get(name);
        if (existing == null) {
            byName.put(name, new HostMetric(type));
        } else if (existing.type() != type) {
            throw new EmulatorException("metric " + name + " defined as " + MetricType.nameOf(type) + " but it is a "
                    + MetricType.nameOf(existing.type()));
        }
    }

    synchronized int increment(String name, long delta) {
        return byName.get(name).increment(delta) ? WasmResult.OK : WasmResult.BAD_ARGUMENT;
    }

    synchronized int record(String name, long value) {
        byName.get(name).record(value);
        return WasmResult.OK;
    }

    /** The value of a counter or gauge; histograms have none. */
    synchronized Optional<Long> read(String name) {
        HostMetric metric = byName.get(name);
        return metric.isHistogram() ? Optional.empty() : Optional.of(metric.value());
    }

    /** The value of counter or gauge {@code name}. */
    public synchronized long value(String name) {
        HostMetric metric = require(name);
        if (metric.isHistogram()) {
            throw new EmulatorException(name + " is a histogram; use samples()");
        }
        return metric.value();
    }

    /** Every value recorded on histogram {@code name}, in order. */
    public synchronized List<Long> samples(String name) {
        return require(name).samples();
    }

    /** Names of every defined metric. */
    public synchronized List<String> names() {
        return List.copyOf(byName.keySet());
    }

    private HostMetric require(String name) {
        HostMetric metric = byName.get(name);
        if (metric == null) {
            throw new EmulatorException("no metric " + name + "; defined: " + byName.keySet());
        }
        return metric;
    }
}
