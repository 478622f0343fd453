package io.ailb.sim.report;

import io.ailb.sim.model.SimRequest;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Call sites for code other modules of the simulator provide, resolved by name so that the CLI works before they
 * exist: {@code io.ailb.sim.bounds.HitRateBounds.compute(List<SimRequest>, int backends, long capacityTokens)}
 * (infinite-cache and pooled-LRU hit rates) and {@code io.ailb.sim.report.plot.Plots.write(Path dir, List<RunResult>)}
 * (or {@code write(Path, RunResult)}, called once per result).
 */
public final class Extensions {
    private static final String BOUNDS = "io.ailb.sim.bounds.HitRateBounds";
    private static final String PLOTS = "io.ailb.sim.report.plot.Plots";

    private Extensions() {
    }

    /**
     * The bounds as name → hit rate in [0, 1] (e.g. {@code infinite}, {@code pooled_lru}); empty when the bounds
     * class is absent. The result object is read through its accessors or fields of type double.
     */
    public static Map<String, Double> bounds(List<SimRequest> workload, int backends, long capacityTokensPerBackend) {
        Map<String, Double> out = new LinkedHashMap<>();
        try {
            Method compute = Class.forName(BOUNDS).getMethod("compute", List.class, int.class, long.class);
            Object result = compute.invoke(null, workload, backends, capacityTokensPerBackend);
            if (result instanceof Map<?, ?> map) {
                map.forEach((k, v) -> {
                    if (v instanceof Number n) {
                        out.put(String.valueOf(k), n.doubleValue());
                    }
                });
                return out;
            }
            Method[] methods = result.getClass().getMethods();
            java.util.Arrays.sort(methods, java.util.Comparator.comparing(Method::getName));
            for (Method m : methods) {
                if (m.getParameterCount() == 0 && (m.getReturnType() == double.class)
                        && m.getDeclaringClass() != Object.class) {
                    out.put(m.getName(), (Double) m.invoke(result));
                }
            }
        } catch (ClassNotFoundException | NoSuchMethodException e) {
            return out;
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException("computing the hit-rate bounds failed", e instanceof
                    InvocationTargetException ite ? ite.getCause() : e);
        }
        return out;
    }

    /** Writes plots into {@code dir}; returns false when the plot class is absent. */
    public static boolean plots(Path dir, List<RunResult> results) {
        Class<?> plots;
        try {
            plots = Class.forName(PLOTS);
        } catch (ClassNotFoundException e) {
            return false;
        }
        try {
            try {
                plots.getMethod("write", Path.class, List.class).invoke(null, dir, results);
                return true;
            } catch (NoSuchMethodException e) {
                Method one = plots.getMethod("write", Path.class, RunResult.class);
                for (RunResult r : results) {
                    one.invoke(null, dir, r);
                }
                return true;
            }
        } catch (NoSuchMethodException e) {
            return false;
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException("writing plots failed", e instanceof
                    InvocationTargetException ite ? ite.getCause() : e);
        }
    }
}
