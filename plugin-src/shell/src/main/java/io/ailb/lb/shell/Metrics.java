package io.ailb.lb.shell;

import io.ailb.proxywasm.Log;
import io.ailb.proxywasm.Metric;
import io.ailb.proxywasm.ProxyWasmException;
import java.util.HashMap;
import java.util.Map;

/** Envoy metrics by name, defined on first use and cached (each definition is a host call). */
final class Metrics {
    private final Map<String, Metric> counters = new HashMap<>();
    private final Map<String, Metric> histograms = new HashMap<>();

    void count(String name) {
        try {
            Metric metric = counters.get(name);
            if (metric == null) {
                metric = Metric.counter(name);
                counters.put(name, metric);
            }
            metric.increment(1);
        } catch (ProxyWasmException e) {
            Log.debug("ai-load-balancer: metric " + name + " unavailable: " + e.getMessage());
        }
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
            Log.debug("ai-load-balancer: metric " + name + " unavailable: " + e.getMessage());
        }
    }
}
