package io.ailb.proxywasm.testkit;

import io.ailb.hostkit.HostMetric;
import io.ailb.proxywasm.bindings.WasmResult;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The host's metrics by name, as Envoy's stats store keeps them: counters only go up, gauges are set or moved,
 * histograms keep every sample. Ids carry the type in their low two bits, like Envoy's.
 */
final class HostMetrics {
    private static final int TYPES = 4;

    private final Map<String, HostMetric> byName = new LinkedHashMap<>();
    private final Map<Integer, HostMetric> byId = new HashMap<>();
    private final int[] nextIndex = new int[TYPES];

    /** The id of the (new or existing) metric; -1 when {@code name} exists with another type. */
    int define(int type, String name) {
        HostMetric metric = byName.computeIfAbsent(name, unused -> new HostMetric(type));
        if (metric.type() != type) {
            return -1;
        }
        int id = nextIndex[type]++ * TYPES + type;
        byId.put(id, metric);
        return id;
    }

    int increment(int id, long delta) {
        HostMetric metric = byId.get(id);
        if (metric == null) {
            return WasmResult.NOT_FOUND;
        }
        return metric.increment(delta) ? WasmResult.OK : WasmResult.BAD_ARGUMENT;
    }

    int record(int id, long value) {
        HostMetric metric = byId.get(id);
        if (metric == null) {
            return WasmResult.NOT_FOUND;
        }
        metric.record(value);
        return WasmResult.OK;
    }

    /** OK, NOT_FOUND for an unknown id, BAD_ARGUMENT for a histogram (it has no single value). */
    int readStatus(int id) {
        HostMetric metric = byId.get(id);
        if (metric == null) {
            return WasmResult.NOT_FOUND;
        }
        return metric.isHistogram() ? WasmResult.BAD_ARGUMENT : WasmResult.OK;
    }

    /** The value of a counter or gauge whose {@link #readStatus} is OK. */
    long read(int id) {
        return byId.get(id).value();
    }

    long value(String name) {
        HostMetric metric = require(name);
        if (metric.isHistogram()) {
            throw new IllegalArgumentException(name + " is a histogram: read its samples with histogram(name)");
        }
        return metric.value();
    }

    List<Long> samples(String name) {
        HostMetric metric = require(name);
        if (!metric.isHistogram()) {
            throw new IllegalArgumentException(name + " is not a histogram: read it with metric(name)");
        }
        return metric.samples();
    }

    List<String> names() {
        return List.copyOf(byName.keySet());
    }

    private HostMetric require(String name) {
        HostMetric metric = byName.get(name);
        if (metric == null) {
            throw new IllegalArgumentException("no metric " + name + "; the guest defined " + byName.keySet());
        }
        return metric;
    }
}
