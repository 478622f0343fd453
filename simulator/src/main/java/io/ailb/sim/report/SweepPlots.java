package io.ailb.sim.report;

import io.ailb.sim.report.plot.Plots;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The TTFT-over-rate plots of a sweep, drawn by the sweep itself and redrawn from its section in docs/benchmarks.md: a
 * section whose plugin rows were re-run and spliced in (exec:java@goal-candidate) keeps its anchors' rows, and its plots
 * must show the table as it now stands. Usage: {@code SweepPlots DOC [SECTION...]}, every section with sweep plots when
 * none is named; paths in the sections' "Plots:" lines are relative to the working directory, as the sweeps wrote them.
 */
public final class SweepPlots {
    public static final String TITLE_PREFIX = "### Routing simulator sweep: ";
    private static final String BOUND_ROW = "*bound*";
    private static final Pattern RATE = Pattern.compile("(x[0-9.]+) = ([0-9.]+) req/s");
    private static final Pattern PLOT = Pattern.compile("`([^`]*sweep-ttft-(mean|p99)\\.png)`");

    /** A sweep as its section states it: per router, one value per rate (NaN where it did not run). */
    record Sweep(
            String section,
            String name,
            double[] requestsPerSecond,
            Map<String, double[]> mean,
            Map<String, double[]> p99,
            double boundMean,
            double boundP99,
            Map<Boolean, Path> plots) {}

    private SweepPlots() {}

    /** Draws the mean (or p99) TTFT of every router against the request rate, with the TTFT lower bound as a line. */
    public static void draw(
            Path png,
            String name,
            boolean p99,
            double[] requestsPerSecond,
            Map<String, double[]> values,
            double bound) {
        String statistic = p99 ? "p99" : "mean";
        Map<String, double[]> x = new LinkedHashMap<>();
        for (String router : values.keySet()) {
            x.put(router, requestsPerSecond);
        }
        Plots.linesOverRate(
                png,
                "TTFT " + statistic + " vs request rate — " + name,
                "TTFT " + statistic + " (ms)",
                x,
                values,
                Map.of("TTFT lower bound (" + statistic + ")", bound));
    }

    /** The sweeps of {@code doc} that have a table, their rates and a "Plots:" line. */
    static List<Sweep> read(String doc) {
        List<Sweep> sweeps = new ArrayList<>();
        Matcher m = GoalStatus.SECTION.matcher(doc);
        while (m.find()) {
            Sweep sweep = parse(m.group(1), m.group(2));
            if (sweep != null) {
                sweeps.add(sweep);
            }
        }
        return sweeps;
    }

    /** The sweep of one section's body; null without a title, a table with the bound row, or a "Plots:" line. */
    static Sweep parse(String section, String body) {
        String name = null;
        List<String> labels = null;
        Map<String, Double> rates = new LinkedHashMap<>();
        Map<String, String[]> rows = new LinkedHashMap<>();
        Map<Boolean, Path> plots = new LinkedHashMap<>();
        for (String line : body.split("\n")) {
            if (line.startsWith(TITLE_PREFIX)) {
                name = line.substring(TITLE_PREFIX.length()).strip();
            } else if (line.startsWith("Rates: ")) {
                Matcher rate = RATE.matcher(line);
                while (rate.find()) {
                    rates.put(rate.group(1), Double.parseDouble(rate.group(2)));
                }
            } else if (line.startsWith("| router |")) {
                labels = GoalStatus.ratesOf(line);
            } else if (labels != null && line.startsWith("| ") && !line.startsWith("|---")) {
                String[] fields = line.substring(1).split("\\|");
                rows.put(fields[0].strip(), fields);
            } else if (line.startsWith("Plots: ")) {
                Matcher plot = PLOT.matcher(line);
                while (plot.find()) {
                    plots.put(plot.group(2).equals("p99"), Path.of(plot.group(1)));
                }
            }
        }
        if (name == null || labels == null || plots.isEmpty() || !rows.containsKey(BOUND_ROW)) {
            return null;
        }
        double[] requestsPerSecond = new double[labels.size()];
        for (int i = 0; i < labels.size(); i++) {
            Double rate = rates.get(labels.get(i));
            if (rate == null) {
                throw new IllegalArgumentException(section + ": no request rate for " + labels.get(i));
            }
            requestsPerSecond[i] = rate;
        }
        Map<String, double[]> mean = new LinkedHashMap<>();
        Map<String, double[]> p99 = new LinkedHashMap<>();
        for (Map.Entry<String, String[]> row : rows.entrySet()) {
            if (row.getKey().equals(BOUND_ROW)) {
                continue;
            }
            double[] means = new double[labels.size()];
            double[] p99s = new double[labels.size()];
            for (int i = 0; i < labels.size(); i++) {
                means[i] = GoalStatus.value(row.getValue(), i, 1);
                p99s[i] = GoalStatus.value(row.getValue(), i, 2);
            }
            mean.put(row.getKey(), means);
            p99.put(row.getKey(), p99s);
        }
        String[] bound = rows.get(BOUND_ROW);
        return new Sweep(
                section,
                name,
                requestsPerSecond,
                mean,
                p99,
                GoalStatus.value(bound, 0, 1),
                GoalStatus.value(bound, 0, 2),
                plots);
    }

    /** Redraws the plots of {@code sweep} from its table; returns the files written. */
    static List<Path> redraw(Sweep sweep) throws IOException {
        List<Path> written = new ArrayList<>();
        for (Map.Entry<Boolean, Path> plot : sweep.plots().entrySet()) {
            boolean p99 = plot.getKey();
            Path png = plot.getValue();
            if (png.getParent() != null) {
                Files.createDirectories(png.getParent());
            }
            draw(
                    png,
                    sweep.name(),
                    p99,
                    sweep.requestsPerSecond(),
                    p99 ? sweep.p99() : sweep.mean(),
                    p99 ? sweep.boundP99() : sweep.boundMean());
            written.add(png);
        }
        return written;
    }

    public static void main(String[] args) throws IOException {
        if (args.length == 0) {
            System.err.println("usage: SweepPlots DOC [SECTION...]");
            System.exit(2);
        }
        String doc = Files.readString(Path.of(args[0]), StandardCharsets.UTF_8);
        List<String> wanted = List.of(args).subList(1, args.length);
        int redrawn = 0;
        for (Sweep sweep : read(doc)) {
            if (wanted.isEmpty() || wanted.contains(sweep.section())) {
                for (Path png : redraw(sweep)) {
                    System.out.println(sweep.section() + ": " + png);
                }
                redrawn++;
            }
        }
        if (redrawn == 0 || (!wanted.isEmpty() && redrawn < wanted.size())) {
            System.err.println("no sweep with plots in " + (wanted.isEmpty() ? args[0] : wanted));
            System.exit(1);
        }
    }
}
