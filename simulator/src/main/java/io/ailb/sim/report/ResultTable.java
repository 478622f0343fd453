package io.ailb.sim.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The per-router comparison as a plain-text table (stdout) or a Markdown table (docs/benchmarks.md). Given the
 * workload's TTFT lower bound (mean, ms), a column "×LB" shows each router's TTFT mean as a multiple of it.
 */
public final class ResultTable {
    /** Each header carries its unit: ms, µs, tokens (tok), bytes (B), per request (/req); hit is % of prompt tokens. */
    private static final String[] HEADERS = {
        "router",
        "hit % tok",
        "TTFT mean ms",
        "p50 ms",
        "p90 ms",
        "p99 ms",
        "E2E mean ms",
        "p90 ms",
        "out tok/s",
        "imbalance max/mean",
        "redis rt/req",
        "redis B/req",
        "decision p50 µs",
        "p99 µs",
        "fallbacks"
    };

    private ResultTable() {}

    static String[] headers(double ttftLowerBoundMs) {
        if (!(ttftLowerBoundMs > 0)) {
            return HEADERS;
        }
        List<String> h = new ArrayList<>(List.of(HEADERS));
        h.add(3, "×LB");
        return h.toArray(new String[0]);
    }

    static List<String[]> rows(List<RunResult> results, double ttftLowerBoundMs) {
        List<String[]> rows = new ArrayList<>();
        for (RunResult r : results) {
            RunResult.PluginStats p = r.plugin();
            List<String> row = new ArrayList<>(List.of(
                    r.router(),
                    pct(r.hitRate()),
                    ms(r.ttft().mean()),
                    ms(r.ttft().p50()),
                    ms(r.ttft().p90()),
                    ms(r.ttft().p99()),
                    ms(r.e2e().mean()),
                    ms(r.e2e().p90()),
                    fmt("%.1f", r.outputTokensPerSecond()),
                    fmt("%.2f", r.loadImbalance()),
                    p == null ? "-" : fmt("%.2f", p.redisRoundTripsPerRequest()),
                    p == null ? "-" : fmt("%.0f", p.redisBytesPerRequest()),
                    p == null ? "-" : fmt("%.0f", p.decisionMicros().p50()),
                    p == null ? "-" : fmt("%.0f", p.decisionMicros().p99()),
                    p == null ? "-" : Long.toString(p.fallbacks())));
            if (ttftLowerBoundMs > 0) {
                row.add(3, fmt("%.2f", r.ttft().mean() / ttftLowerBoundMs));
            }
            rows.add(row.toArray(new String[0]));
        }
        return rows;
    }

    /** Aligned columns; times in ms. */
    public static String text(List<RunResult> results) {
        return text(results, Double.NaN);
    }

    /** As {@link #text(List)} with the "×LB" column when {@code ttftLowerBoundMs} is positive. */
    public static String text(List<RunResult> results, double ttftLowerBoundMs) {
        String[] headers = headers(ttftLowerBoundMs);
        List<String[]> rows = rows(results, ttftLowerBoundMs);
        int[] width = new int[headers.length];
        for (int c = 0; c < headers.length; c++) {
            width[c] = headers[c].length();
            for (String[] row : rows) {
                width[c] = Math.max(width[c], row[c].length());
            }
        }
        StringBuilder out = new StringBuilder();
        appendRow(out, headers, width);
        StringBuilder rule = new StringBuilder();
        for (int c = 0; c < width.length; c++) {
            rule.append(c == 0 ? "" : "  ").append("-".repeat(width[c]));
        }
        out.append(rule).append('\n');
        for (String[] row : rows) {
            appendRow(out, row, width);
        }
        return out.toString();
    }

    private static void appendRow(StringBuilder out, String[] cells, int[] width) {
        for (int c = 0; c < cells.length; c++) {
            if (c > 0) {
                out.append("  ");
            }
            String cell = cells[c];
            out.append(
                    c == 0 ? cell + " ".repeat(width[c] - cell.length()) : " ".repeat(width[c] - cell.length()) + cell);
        }
        out.append('\n');
    }

    /** A Markdown table of the same columns. */
    public static String markdown(List<RunResult> results) {
        return markdown(results, Double.NaN);
    }

    /** As {@link #markdown(List)} with the "×LB" column when {@code ttftLowerBoundMs} is positive. */
    public static String markdown(List<RunResult> results, double ttftLowerBoundMs) {
        String[] headers = headers(ttftLowerBoundMs);
        StringBuilder out = new StringBuilder("| ");
        out.append(String.join(" | ", headers)).append(" |\n|");
        for (int c = 0; c < headers.length; c++) {
            out.append(c == 0 ? "---|" : "---:|");
        }
        out.append('\n');
        for (String[] row : rows(results, ttftLowerBoundMs)) {
            out.append("| ").append(String.join(" | ", row)).append(" |\n");
        }
        return out.toString();
    }

    public static String pct(double v) {
        return fmt("%.1f%%", v * 100);
    }

    public static String ms(double v) {
        return v >= 10_000 ? fmt("%.0f", v) : fmt("%.1f", v);
    }

    static String fmt(String format, double v) {
        return String.format(Locale.ROOT, format, v);
    }
}
