package io.ailb.sim.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A load sweep: the same routers at several request rates. One row per router with hit rate, TTFT mean and p99 at
 * each rate, the bounds below, and per rate the best of the plugin's policies ({@code plugin:*}) against the best
 * anchor (SGLang's, SMG's, llm-d's and Dynamo's routers: {@link #isAnchor}).
 */
public final class SweepTable {
    /** The routers' results at one rate; {@code label} names the rate (e.g. "x2"), {@code requestsPerSecond} its value. */
    public record Point(String label, double requestsPerSecond, List<RunResult> results) {}

    /** Bounds shared by every rate (the workload's order and sizes do not change with the rate). */
    public record Bounds(
            double infiniteHitRate, double pooledHitRate, double ttftLowerBoundMeanMs, double ttftLowerBoundP99Ms) {}

    private SweepTable() {}

    /** The product routers the plugin is measured against. */
    public static boolean isAnchor(String router) {
        return router.startsWith("sglang_")
                || router.startsWith("smg_")
                || router.startsWith("llmd")
                || router.startsWith("dynamo");
    }

    public static boolean isPlugin(String router) {
        return router.startsWith("plugin:");
    }

    /** Router names in first-seen order. */
    public static List<String> routers(List<Point> points) {
        List<String> names = new ArrayList<>();
        for (Point p : points) {
            for (RunResult r : p.results()) {
                if (!names.contains(r.router())) {
                    names.add(r.router());
                }
            }
        }
        return names;
    }

    public static String markdown(List<Point> points, Bounds bounds) {
        StringBuilder out = new StringBuilder("| router |");
        StringBuilder rule = new StringBuilder("|---|");
        for (Point p : points) {
            out.append(' ')
                    .append(p.label())
                    .append(" hit % tok | ")
                    .append(p.label())
                    .append(" TTFT mean ms | ")
                    .append(p.label())
                    .append(" p99 ms |");
            rule.append("---:|---:|---:|");
        }
        out.append('\n').append(rule).append('\n');
        for (String router : routers(points)) {
            out.append("| ").append(router).append(" |");
            for (Point p : points) {
                RunResult r = find(p, router);
                out.append(
                        r == null
                                ? " - | - | - |"
                                : " " + ResultTable.pct(r.hitRate()) + " | "
                                        + ResultTable.ms(r.ttft().mean()) + " | "
                                        + ResultTable.ms(r.ttft().p99()) + " |");
            }
            out.append('\n');
        }
        out.append("| *bound* |");
        for (int i = 0; i < points.size(); i++) {
            out.append(' ')
                    .append(ResultTable.pct(bounds.infiniteHitRate()))
                    .append(" | ")
                    .append(ResultTable.ms(bounds.ttftLowerBoundMeanMs()))
                    .append(" | ")
                    .append(ResultTable.ms(bounds.ttftLowerBoundP99Ms()))
                    .append(" |");
        }
        out.append('\n');
        return out.toString();
    }

    /**
     * Per rate: the best plugin policy's TTFT mean and p99 over the best anchor's (each the lowest among its group),
     * e.g. {@code x2 (1.9 req/s): mean plugin:prefix_cache 917 / sglang_cache_aware 779 = 1.18; p99 … = 1.05}.
     */
    public static List<String> comparisons(List<Point> points) {
        List<String> lines = new ArrayList<>();
        for (Point p : points) {
            RunResult oursMean = best(p, true, false);
            RunResult anchorMean = best(p, false, false);
            RunResult oursP99 = best(p, true, true);
            RunResult anchorP99 = best(p, false, true);
            if (oursMean == null || anchorMean == null) {
                continue;
            }
            lines.add(String.format(
                    Locale.ROOT,
                    "%s (%.2f req/s): TTFT mean %s %s / %s %s = %.2f; p99 %s %s / %s %s"
                            + " = %.2f; hit %s %s vs %s %s",
                    p.label(),
                    p.requestsPerSecond(),
                    oursMean.router(),
                    ResultTable.ms(oursMean.ttft().mean()),
                    anchorMean.router(),
                    ResultTable.ms(anchorMean.ttft().mean()),
                    oursMean.ttft().mean() / anchorMean.ttft().mean(),
                    oursP99.router(),
                    ResultTable.ms(oursP99.ttft().p99()),
                    anchorP99.router(),
                    ResultTable.ms(anchorP99.ttft().p99()),
                    oursP99.ttft().p99() / anchorP99.ttft().p99(),
                    oursMean.router(),
                    ResultTable.pct(oursMean.hitRate()),
                    anchorMean.router(),
                    ResultTable.pct(anchorMean.hitRate())));
        }
        return lines;
    }

    /** Router → one value per point (NaN where the router did not run), for plotting. */
    public static Map<String, double[]> series(List<Point> points, boolean p99) {
        Map<String, double[]> series = new LinkedHashMap<>();
        for (String router : routers(points)) {
            double[] v = new double[points.size()];
            for (int i = 0; i < v.length; i++) {
                RunResult r = find(points.get(i), router);
                v[i] = r == null ? Double.NaN : p99 ? r.ttft().p99() : r.ttft().mean();
            }
            series.put(router, v);
        }
        return series;
    }

    private static RunResult best(Point p, boolean plugin, boolean p99) {
        RunResult best = null;
        for (RunResult r : p.results()) {
            if (plugin ? !isPlugin(r.router()) : !isAnchor(r.router())) {
                continue;
            }
            double v = p99 ? r.ttft().p99() : r.ttft().mean();
            if (best == null || v < (p99 ? best.ttft().p99() : best.ttft().mean())) {
                best = r;
            }
        }
        return best;
    }

    private static RunResult find(Point p, String router) {
        for (RunResult r : p.results()) {
            if (r.router().equals(router)) {
                return r;
            }
        }
        return null;
    }
}
