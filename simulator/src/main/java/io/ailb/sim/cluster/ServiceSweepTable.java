package io.ailb.sim.cluster;

import io.ailb.sim.report.ResultTable;
import io.ailb.sim.report.RunResult;
import io.ailb.sim.report.SweepTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A load sweep over services: per router and rate the TTFT mean and p99, the total latency (arrival to last token)
 * mean and p99, and the share of the requests each service got.
 */
public final class ServiceSweepTable {
    private ServiceSweepTable() {}

    /** Each service's share of {@code result}'s requests, in layout order (sums to 1 when any was routed). */
    public static double[] shares(RunResult result, ServiceLayout layout) {
        double[] shares = new double[layout.size()];
        long[] perBackend = result.requestsPerBackend();
        long total = 0;
        for (int b = 0; b < perBackend.length; b++) {
            shares[layout.serviceOf(b)] += perBackend[b];
            total += perBackend[b];
        }
        for (int i = 0; i < shares.length; i++) {
            shares[i] = total == 0 ? 0 : shares[i] / total;
        }
        return shares;
    }

    /** E.g. {@code 52/31/17}: whole percents in layout order. */
    public static String shareText(RunResult result, ServiceLayout layout) {
        List<String> parts = new ArrayList<>();
        for (double share : shares(result, layout)) {
            parts.add(String.format(Locale.ROOT, "%.0f", 100 * share));
        }
        return String.join("/", parts);
    }

    public static String markdown(List<SweepTable.Point> points, ServiceLayout layout) {
        List<String> names = new ArrayList<>();
        layout.services().forEach(s -> names.add(s.name()));
        String shareHeader = "% " + String.join("/", names);
        StringBuilder out = new StringBuilder("| router |");
        StringBuilder rule = new StringBuilder("|---|");
        for (SweepTable.Point p : points) {
            String l = p.label();
            out.append(String.format(
                    " %s TTFT mean | %s p99 | %s total mean | %s p99 | %s %s |", l, l, l, l, l, shareHeader));
            rule.append("---:|---:|---:|---:|---:|");
        }
        out.append('\n').append(rule).append('\n');
        for (String router : SweepTable.routers(points)) {
            out.append("| ").append(router).append(" |");
            for (SweepTable.Point p : points) {
                RunResult r = find(p, router);
                out.append(
                        r == null
                                ? " - | - | - | - | - |"
                                : " " + ResultTable.ms(r.ttft().mean()) + " | "
                                        + ResultTable.ms(r.ttft().p99())
                                        + " | " + ResultTable.ms(r.e2e().mean()) + " | "
                                        + ResultTable.ms(r.e2e().p99()) + " | " + shareText(r, layout) + " |");
            }
            out.append('\n');
        }
        return out.toString();
    }

    /** Per rate, the router with the lowest TTFT mean and the one with the lowest total-latency mean. */
    public static List<String> winners(List<SweepTable.Point> points) {
        List<String> lines = new ArrayList<>();
        for (SweepTable.Point p : points) {
            RunResult ttft = null;
            RunResult total = null;
            for (RunResult r : p.results()) {
                if (ttft == null || r.ttft().mean() < ttft.ttft().mean()) {
                    ttft = r;
                }
                if (total == null || r.e2e().mean() < total.e2e().mean()) {
                    total = r;
                }
            }
            if (ttft != null) {
                lines.add(String.format(
                        Locale.ROOT,
                        "%s (%.2f req/s): lowest TTFT mean %s %s ms, lowest total mean %s %s ms",
                        p.label(),
                        p.requestsPerSecond(),
                        ttft.router(),
                        ResultTable.ms(ttft.ttft().mean()),
                        total.router(),
                        ResultTable.ms(total.e2e().mean())));
            }
        }
        return lines;
    }

    private static RunResult find(SweepTable.Point p, String router) {
        for (RunResult r : p.results()) {
            if (r.router().equals(router)) {
                return r;
            }
        }
        return null;
    }
}
