package io.ailb.sim.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The per-router comparison as a plain-text table (stdout) or a Markdown table (docs/benchmarks.md). */
public final class ResultTable {
    private static final String[] HEADERS = {"router", "hit", "TTFT mean", "p50", "p90", "p99", "E2E mean", "p90",
        "out tok/s", "imbalance", "redis rt/req", "redis B/req", "decision µs p50", "p99", "fallbacks"};

    private ResultTable() {
    }

    static List<String[]> rows(List<RunResult> results) {
        List<String[]> rows = new ArrayList<>();
        for (RunResult r : results) {
            RunResult.PluginStats p = r.plugin();
            rows.add(new String[] {
                r.router(),
                pct(r.hitRate()),
                ms(r.ttft().mean()), ms(r.ttft().p50()), ms(r.ttft().p90()), ms(r.ttft().p99()),
                ms(r.e2e().mean()), ms(r.e2e().p90()),
                fmt("%.1f", r.outputTokensPerSecond()),
                fmt("%.2f", r.loadImbalance()),
                p == null ? "-" : fmt("%.2f", p.redisRoundTripsPerRequest()),
                p == null ? "-" : fmt("%.0f", p.redisBytesPerRequest()),
                p == null ? "-" : fmt("%.0f", p.decisionMicros().p50()),
                p == null ? "-" : fmt("%.0f", p.decisionMicros().p99()),
                p == null ? "-" : Long.toString(p.fallbacks()),
            });
        }
        return rows;
    }

    /** Aligned columns; times in ms. */
    public static String text(List<RunResult> results) {
        List<String[]> rows = rows(results);
        int[] width = new int[HEADERS.length];
        for (int c = 0; c < HEADERS.length; c++) {
            width[c] = HEADERS[c].length();
            for (String[] row : rows) {
                width[c] = Math.max(width[c], row[c].length());
            }
        }
        StringBuilder out = new StringBuilder();
        appendRow(out, HEADERS, width);
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
            out.append(c == 0 ? cell + " ".repeat(width[c] - cell.length())
                    : " ".repeat(width[c] - cell.length()) + cell);
        }
        out.append('\n');
    }

    /** A Markdown table of the same columns. */
    public static String markdown(List<RunResult> results) {
        StringBuilder out = new StringBuilder("| ");
        out.append(String.join(" | ", HEADERS)).append(" |\n|");
        for (int c = 0; c < HEADERS.length; c++) {
            out.append(c == 0 ? "---|" : "---:|");
        }
        out.append('\n');
        for (String[] row : rows(results)) {
            out.append("| ").append(String.join(" | ", row)).append(" |\n");
        }
        return out.toString();
    }

    static String pct(double v) {
        return fmt("%.1f%%", v * 100);
    }

    static String ms(double v) {
        return v >= 10_000 ? fmt("%.0f", v) : fmt("%.1f", v);
    }

    static String fmt(String format, double v) {
        return String.format(Locale.ROOT, format, v);
    }
}
