package io.ailb.emulator;

import io.ailb.emulator.bindings.WasmResult;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The metric ids one VM handed out. Ids encode the type in the low two bits, as Envoy's (counter 4k, gauge 4k+1,
 * histogram 4k+2); the values live in the gateway's {@link MetricRegistry}, shared by its VMs.
 */
final class MetricHandles {
    private final MetricRegistry metrics;
    private final Map<Integer, String> names = new HashMap<>();
    private final int[] nextId = {0, 1, 2};

    MetricHandles(MetricRegistry metrics) {
        this.metrics = metrics;
    }

    /** {@code type} is a {@code MetricType} value the caller checked. */
    int define(int type, String name) {
        metrics.define(type, name);
        int metricId = nextId[type];
        nextId[type] += 4;
        names.put(metricId, name);
        return metricId;
    }

    int increment(int metricId, long delta) {
        String name = names.get(metricId);
        return name == null ? WasmResult.NOT_FOUND : metrics.increment(name, delta);
    }

    int record(int metricId, long value) {
        String name = names.get(metricId);
        return name == null ? WasmResult.NOT_FOUND : metrics.record(name, value);
    }

    boolean isDefined(int metricId) {
        return names.containsKey(metricId);
    }

    /** The value of a defined counter or gauge; empty for a histogram. */
    Optional<Long> read(int metricId) {
        return metrics.read(names.get(metricId));
    }
}
