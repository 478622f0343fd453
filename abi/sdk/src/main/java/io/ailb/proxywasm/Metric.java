package io.ailb.proxywasm;

import io.ailb.proxywasm.bindings.MetricType;
import io.ailb.proxywasm.internal.Vm;

/** A host metric (Envoy stats). Define once, e.g. in {@link RootContext#onConfigure}, and keep the object. */
public final class Metric {
    private final int id;

    private Metric(int id) {
        this.id = id;
    }

    public static Metric counter(String name) {
        return new Metric(Vm.abi().defineMetric(MetricType.COUNTER, name));
    }

    public static Metric gauge(String name) {
        return new Metric(Vm.abi().defineMetric(MetricType.GAUGE, name));
    }

    public static Metric histogram(String name) {
        return new Metric(Vm.abi().defineMetric(MetricType.HISTOGRAM, name));
    }

    /** The host's metric id. */
    public int id() {
        return id;
    }

    /** Counters and gauges. */
    public void increment(long delta) {
        Vm.abi().incrementMetric(id, delta);
    }

    /** Sets a gauge; adds a sample to a histogram. */
    public void record(long value) {
        Vm.abi().recordMetric(id, value);
    }

    /** The current value (counters and gauges). */
    public long value() {
        return Vm.abi().getMetric(id);
    }
}
