package io.ailb.proxywasm.testkit;

import io.ailb.proxywasm.bindings.MetricType;
import io.ailb.proxywasm.bindings.WasmResult;
import java.util.ArrayList;
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

    private final Map<String, Metric> byName = new LinkedHashMap<>();
    private final Map<Integer, Metric> byId = new HashMap<>();
    private final int[] nextIndex = new int[TYPES];

    private static final class Metric {
        final int type;
        long value;
        final List<Long> samples = new ArrayList<>();

        Metric(int type) {
            this.type = type;
        }
    }

    /** The id of the (new or existing) metric; -1 when {@code name} exists with another type. */
    int define(int type, String name) {
        Metric metric = byName.computeIfAbsent(name, unused -> new Metric(type));
        if (metric.type != type) {
            return -1;
        }
        int id = nextIndex[type]++ * TYPES + type;
        byId.put(id, metric);
        return id;
    }

    int increment(int id, long delta) {
        Metric metric = byId.get(id);
        if (metric == null) {
            return WasmResult.NOT_FOUND;
        }
        if (metric.type == MetricType.HISTOGRAM || (metric.type == MetricType.COUNTER && delta < 0)) {
            return WasmResult.BAD_ARGUMENT;
        }
        metric.value += delta;
        return WasmResult.OK;
    }

    int record(int id, long value) {
        Metric metric = byId.get(id);
        if (metric == null) {
            return WasmResult.NOT_FOUND;
        }
        if (metric.type == MetricType.COUNTER) {
            metric.value += value;
        } else if (metric.type == MetricType.GAUGE) {
            metric.value = value;
        } else {
            metric.samples.add(value);
        }
        return WasmResult.OK;
    }

    /** OK, NOT_FOUND for an unknown id, BAD_ARGUMENT for a histogram (it has no single value). */
    int readStatus(int id) {
        Metric metric = byId.get(id);
        if (metric == null) {
            return WasmResult.NOT_FOUND;
        }
        return metric.type == MetricType.HISTOGRAM ? WasmResult.BAD_ARGUMENT : WasmResult.OK;
    }

    /** The value of a counter or gauge whose {@link #readStatus} is OK. */
    long read(int id) {
        return byId.get(id).value;
    }

    long value(String name) {
        Metric metric = require(name);
        if (metric.type == MetricType.HISTOGRAM) {
            throw new IllegalArgumentException(name + " is a histogram: read its samples with histogram(name)");
        }
        return metric.value;
    }

    List<Long> samples(String name) {
        Metric metric = require(name);
        if (metric.type != MetricType.HISTOGRAM) {
            throw new IllegalArgumentException(name + " is not a histogram: read it with metric(name)");
        }
        return List.copyOf(metric.samples);
    }

    List<String> names() {
        return List.copyOf(byName.keySet());
    }

    private Metric require(String name) {
        Metric metric = byName.get(name);
        if (metric == null) {
            throw new IllegalArgumentException("no metric " + name + "; the guest defined " + byName.keySet());
        }
        return metric;
    }
}
