package io.ailb.lb.shell;

import io.ailb.proxywasm.Log;
import io.ailb.proxywasm.Metric;
import io.ailb.proxywasm.ProxyWasmException;
import java.util.HashMap;
import java.util.Map;

/** Envoy metrics by name, defined on first use and cached (each definition is a host call). */
final class Metrics {
    private final Map<String, Metric> counters = new HashMap<>();
    private final Map<String, Metric> gauges = new HashMap<>();
    private final Map<String, Metric> histograms = new HashMap<>();

    void count(String name, long delta) {
        try {
            Metric metric = counters.get(name);
            if (metric == null) {
                metric = Metric.counter(name);
                counters.put(name, metric);
            }
            metric.increment(delta);
        } catch (ProxyWasmException e) {
            unavailable(name, e);
        }
    }

    void addToGauge(String name, long delta) {
        try {
            gauge(name).increment(delta);
        } catch (ProxyWasmException e) {
            unavailable(name, e);
        }
    }

    void setGauge(String name, long value) {
        try {
            gauge(name).record(value);
        } catch (ProxyWasmException e) {
            unavailable(name, e);
        }
    }

    private Metric gauge(String name) {
        Metric metric = gauges.get(name);
        if (metric == null) {
            metric = Metric.gauge(name);
            gauges.put(name, metric);
        }
        return metric;
    }

    void record(String name, long value) {
        try {
            Metric metric = histograms.get(name);
            if (metric == null) {
                metric = Metric.histogram(name);
                histograms.put(name, metric);
            }
            metric.record(value);
        } catch (ProxyWasmException e) {
            unavailable(name, e);
        }
    }

    private static void unavailable(String name, ProxyWasmException e) {
        Log.debug("ai-load-balancer: metric " + name + " unavailable: " + e.getMessage());
    }
}
