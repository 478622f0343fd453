package io.ailb.sim.report.plot;

import io.ailb.sim.report.RunResult;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.Point;
import java.awt.RenderingHints;
import java.awt.Stroke;
import java.awt.geom.AffineTransform;
import java.awt.geom.Path2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.imageio.ImageIO;

/**
 * PNG charts of a comparison run, for people (the numbers themselves go to docs/benchmarks.md). Plain Java2D on a
 * {@link BufferedImage}: no chart library, works headless ({@code java.awt.headless=true} is set when unset). Needs
 * one installed font (DejaVu on Debian).
 *
 * <p>Inputs are plain maps whose iteration order is the order drawn (pass a {@code LinkedHashMap}):
 * <ul>
 * <li>{@link #hitRates}: router → token-weighted hit rate as a fraction in [0, 1]; optional bounds (label →
 * fraction, e.g. "infinite cache" → 0.374) drawn as dashed horizontal lines.</li>
 * <li>{@link #ttftPercentiles}: router → TTFT in ms at {@link #TTFT_PERCENTILES} (p50, p90, p99); the axis turns
 * logarithmic when the largest and smallest positive values differ by more than {@link #LOG_SCALE_RATIO}×.</li>
 * <li>{@link #loadOverTime}: sample times (s) shared by all routers, router → {@code [backend][sample]} load (e.g.
 * in-flight requests); one small panel per router, same axes everywhere, one line per backend.</li>
 * </ul>
 * The {@link RunResult} overloads and {@link #writeAll} draw the same charts from the engine's results.
 */
public final class Plots {
    /** Space between the plot's right edge and a bound's label. */
    private static final int BOUND_LABEL_GAP = 6;

    public static final int WIDTH = 1000;
    public static final int HEIGHT = 600;
    public static final List<String> TTFT_PERCENTILES = List.of("p50", "p90", "p99");
    public static final double LOG_SCALE_RATIO = 100;

    private static final Color[] PALETTE = {
        new Color(0x1f77b4),
        new Color(0xff7f0e),
        new Color(0x2ca02c),
        new Color(0xd62728),
        new Color(0x9467bd),
        new Color(0x8c564b),
        new Color(0xe377c2),
        new Color(0x7f7f7f),
        new Color(0xbcbd22),
        new Color(0x17becf)
    };
    private static final Color GRID = new Color(0xe6e6e6);
    private static final Color AXIS = new Color(0x444444);
    private static final Font TITLE = new Font(Font.SANS_SERIF, Font.BOLD, 18);
    private static final Font LABEL = new Font(Font.SANS_SERIF, Font.PLAIN, 13);
    private static final Font SMALL = new Font(Font.SANS_SERIF, Font.PLAIN, 11);

    static {
        if (System.getProperty("java.awt.headless") == null) {
            System.setProperty("java.awt.headless", "true");
        }
    }

    private Plots() {}

    /** Bar chart of hit rate per router, {@value #WIDTH}×{@value #HEIGHT}. */
    public static void hitRates(Path out, Map<String, Double> hitRates) {
        hitRates(out, "Prefix-cache hit rate per router (token-weighted)", hitRates, Map.of(), WIDTH, HEIGHT);
    }

    /** Bar chart of hit rate per router with bound lines, {@value #WIDTH}×{@value #HEIGHT}. */
    public static void hitRates(Path out, Map<String, Double> hitRates, Map<String, Double> bounds) {
        hitRates(out, "Prefix-cache hit rate per router (token-weighted)", hitRates, bounds, WIDTH, HEIGHT);
    }

    public static void hitRates(
            Path out, String title, Map<String, Double> hitRates, Map<String, Double> bounds, int width, int height) {
        requireNonEmpty(hitRates, "hitRates");
        List<String> names = new ArrayList<>(hitRates.keySet());
        double max = 0;
        for (double v : hitRates.values()) {
            max = Math.max(max, finite(v) * 100);
        }
        for (double v : bounds.values()) {
            max = Math.max(max, finite(v) * 100);
        }
        Axis y = Axis.linear(0, Math.min(100, Math.max(1, max * 1.08)), 6);
        Canvas c = new Canvas(width, height, title);
        FontMetrics small = c.g.getFontMetrics(SMALL);
        List<String> boundLabels = new ArrayList<>();
        int widestBoundLabel = 0;
        for (Map.Entry<String, Double> b : bounds.entrySet()) {
            String label = String.format(Locale.ROOT, "%s %.1f%%", b.getKey(), finite(b.getValue()) * 100);
            boundLabels.add(label);
            widestBoundLabel = Math.max(widestBoundLabel, small.stringWidth(label));
        }
        int rightMargin = bounds.isEmpty() ? 30 : BOUND_LABEL_GAP + widestBoundLabel + 10;
        Frame f = c.frame(70, rightMargin, names, y, "hit rate (%)");
        double slot = (double) f.width() / names.size();
        int barWidth = (int) Math.max(2, slot * 0.6);
        for (int i = 0; i < names.size(); i++) {
            double v = finite(hitRates.get(names.get(i))) * 100;
            int x = (int) (f.left + slot * i + (slot - barWidth) / 2);
            int top = (int) y.toPixel(v, f.top, f.bottom);
            c.g.setColor(PALETTE[0]);
            c.g.fillRect(x, top, barWidth, f.bottom - top);
            c.g.setFont(SMALL);
            c.g.setColor(AXIS);
            String label = String.format(Locale.ROOT, "%.1f%%", v);
            c.g.drawString(label, x + (barWidth - c.g.getFontMetrics().stringWidth(label)) / 2, top - 4);
        }
        Stroke dashed = new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10, new float[] {6, 4}, 0);
        List<Double> boundValues = new ArrayList<>(bounds.values());
        int[] lineY = new int[boundValues.size()];
        int[] wantedBaseline = new int[boundValues.size()];
        for (int i = 0; i < lineY.length; i++) {
            lineY[i] = (int) y.toPixel(finite(boundValues.get(i)) * 100, f.top, f.bottom);
            wantedBaseline[i] = lineY[i] + small.getAscent() / 2;
        }
        // bounds are often equal or close (a large cache makes both the same): their labels must not overlap
        int[] baseline = spreadLabels(wantedBaseline, small.getHeight(), f.top + small.getAscent(), f.bottom);
        for (int i = 0; i < lineY.length; i++) {
            c.g.setColor(PALETTE[(i + 1) % PALETTE.length]);
            Stroke old = c.g.getStroke();
            c.g.setStroke(dashed);
            c.g.drawLine(f.left, lineY[i], f.right, lineY[i]);
            c.g.setStroke(old);
            c.g.setFont(SMALL);
            c.g.drawString(boundLabels.get(i), f.right + BOUND_LABEL_GAP, baseline[i]);
        }
        c.write(out);
    }

    /** Grouped bars p50/p90/p99 of TTFT per router, {@value #WIDTH}×{@value #HEIGHT}. */
    public static void ttftPercentiles(Path out, Map<String, double[]> ttftMs) {
        ttftPercentiles(out, "TTFT percentiles per router", ttftMs, WIDTH, HEIGHT);
    }

    public static void ttftPercentiles(Path out, String title, Map<String, double[]> ttftMs, int width, int height) {
        requireNonEmpty(ttftMs, "ttftMs");
        List<String> names = new ArrayList<>(ttftMs.keySet());
        int series = TTFT_PERCENTILES.size();
        double max = 0;
        double minPositive = Double.POSITIVE_INFINITY;
        for (Map.Entry<String, double[]> e : ttftMs.entrySet()) {
            if (e.getValue() == null || e.getValue().length != series) {
                throw new IllegalArgumentException(
                        "ttftMs of '" + e.getKey() + "' must hold " + series + " values " + TTFT_PERCENTILES);
            }
            for (double v : e.getValue()) {
                v = finite(v);
                max = Math.max(max, v);
                if (v > 0) {
                    minPositive = Math.min(minPositive, v);
                }
            }
        }
        boolean log = minPositive < Double.POSITIVE_INFINITY && max / minPositive > LOG_SCALE_RATIO;
        Axis y = log ? Axis.logarithmic(minPositive, max) : Axis.linear(0, Math.max(1, max * 1.08), 6);
        Canvas c = new Canvas(width, height, title + (log ? " (log scale)" : ""));
        Frame f = c.frame(80, 30, names, y, "TTFT (ms)");
        double slot = (double) f.width() / names.size();
        double group = slot * 0.8;
        int barWidth = (int) Math.max(1, group / series);
        for (int i = 0; i < names.size(); i++) {
            double[] values = ttftMs.get(names.get(i));
            for (int s = 0; s < series; s++) {
                double v = finite(values[s]);
                int x = (int) (f.left + slot * i + (slot - group) / 2 + s * barWidth);
                int top = (int) y.toPixel(v, f.top, f.bottom);
                c.g.setColor(PALETTE[s % PALETTE.length]);
                c.g.fillRect(x, top, Math.max(1, barWidth - 1), f.bottom - top);
                if (barWidth >= 24) {
                    c.g.setFont(SMALL);
                    c.g.setColor(AXIS);
                    String label = Axis.format(v);
                    c.g.drawString(label, x + (barWidth - c.g.getFontMetrics().stringWidth(label)) / 2, top - 3);
                }
            }
        }
        c.legend(TTFT_PERCENTILES, f.right, f.top);
        c.write(out);
    }

    /** Height {@link #loadOverTime} uses by default: 2 panels per row. */
    public static int loadOverTimeHeight(int routers) {
        int rows = (Math.max(1, routers) + 1) / 2;
        return 110 + rows * 250;
    }

    /** One panel per router, one line per backend; {@value #WIDTH} × {@link #loadOverTimeHeight}. */
    public static void loadOverTime(Path out, double[] timesSec, Map<String, double[][]> load) {
        loadOverTime(
                out,
                "In-flight requests per backend over time",
                "in flight",
                timesSec,
                load,
                WIDTH,
                loadOverTimeHeight(load.size()));
    }

    public static void loadOverTime(
            Path out,
            String title,
            String yLabel,
            double[] timesSec,
            Map<String, double[][]> load,
            int width,
            int height) {
        requireNonEmpty(load, "load");
        Map<String, double[]> times = new LinkedHashMap<>();
        for (String router : load.keySet()) {
            times.put(router, timesSec);
        }
        loadOverTime(out, title, yLabel, times, load, width, height);
    }

    /**
     * As {@link #loadOverTime(Path, String, String, double[], Map, int, int)} with sample times per router (runs of
     * different routers may end at different times); the x axis spans all of them.
     */
    public static void loadOverTime(
            Path out,
            String title,
            String yLabel,
            Map<String, double[]> timesSec,
            Map<String, double[][]> load,
            int width,
            int height) {
        requireNonEmpty(load, "load");
        int backends = 0;
        double max = 0;
        double tMin = Double.POSITIVE_INFINITY;
        double tMax = Double.NEGATIVE_INFINITY;
        for (Map.Entry<String, double[][]> e : load.entrySet()) {
            double[] t = timesSec.get(e.getKey());
            if (t == null || t.length == 0) {
                throw new IllegalArgumentException("no sample times for '" + e.getKey() + "'");
            }
            tMin = Math.min(tMin, t[0]);
            tMax = Math.max(tMax, t[t.length - 1]);
            for (double[] line : e.getValue()) {
                if (line.length != t.length) {
                    throw new IllegalArgumentException(
                            "load of '" + e.getKey() + "': " + line.length + " samples, its times have " + t.length);
                }
                for (double v : line) {
                    max = Math.max(max, finite(v));
                }
            }
            backends = Math.max(backends, e.getValue().length);
        }
        Axis y = Axis.linear(0, Math.max(1e-9, max * 1.05), 4);
        Axis x = Axis.linear(tMin, Math.max(tMax, tMin + 1e-9), 5);
        Canvas c = new Canvas(width, height, title);
        List<String> legend = new ArrayList<>();
        for (int b = 0; b < backends; b++) {
            legend.add("backend " + b);
        }
        int legendBottom = c.legendRow(legend, 10, 44, width - 20);
        int cols = load.size() == 1 ? 1 : 2;
        int rows = (load.size() + cols - 1) / cols;
        int panelW = (width - 20) / cols;
        int panelH = (height - legendBottom - 10) / rows;
        int i = 0;
        for (Map.Entry<String, double[][]> e : load.entrySet()) {
            int px = 10 + (i % cols) * panelW;
            int py = legendBottom + 5 + (i / cols) * panelH;
            Frame f = new Frame(px + 60, px + panelW - 15, py + 24, py + panelH - 40);
            c.g.setFont(LABEL);
            c.g.setColor(Color.BLACK);
            c.g.drawString(e.getKey(), f.left, py + 16);
            c.grid(f, y, yLabel);
            c.xAxis(f, x, i + cols >= load.size() ? "time (s)" : null);
            double[] t = timesSec.get(e.getKey());
            double[][] lines = e.getValue();
            Stroke old = c.g.getStroke();
            c.g.setStroke(new BasicStroke(1.4f));
            for (int b = 0; b < lines.length; b++) {
                Path2D.Double path = new Path2D.Double();
                for (int k = 0; k < t.length; k++) {
                    double xpx = x.toPixelX(t[k], f.left, f.right);
                    double ypx = y.toPixel(finite(lines[b][k]), f.top, f.bottom);
                    if (k == 0) {
                        path.moveTo(xpx, ypx);
                    } else {
                        path.lineTo(xpx, ypx);
                    }
                }
                c.g.setColor(color(b, backends));
                c.g.draw(path);
            }
            c.g.setStroke(old);
            i++;
        }
        c.write(out);
    }

    /**
     * One line per router of a value against the request rate (a load sweep), markers at the measured points, and an
     * optional dashed reference line ({@code boundLabel} → value, e.g. the TTFT lower bound); the y axis turns
     * logarithmic when the values span more than {@link #LOG_SCALE_RATIO}×. {@value #WIDTH}×{@value #HEIGHT}.
     *
     * @param ratesPerSecond router → x values (requests/s), ascending
     * @param values         router → y values, one per rate
     */
    public static void linesOverRate(
            Path out,
            String title,
            String yLabel,
            Map<String, double[]> ratesPerSecond,
            Map<String, double[]> values,
            Map<String, Double> bounds) {
        requireNonEmpty(values, "values");
        double xMax = 0;
        double max = 0;
        double minPositive = Double.POSITIVE_INFINITY;
        for (Map.Entry<String, double[]> e : values.entrySet()) {
            double[] x = ratesPerSecond.get(e.getKey());
            if (x == null || x.length != e.getValue().length || x.length == 0) {
                throw new IllegalArgumentException("rates of '" + e.getKey() + "' must match its values");
            }
            for (int i = 0; i < x.length; i++) {
                xMax = Math.max(xMax, finite(x[i]));
                double v = finite(e.getValue()[i]);
                max = Math.max(max, v);
                if (v > 0) {
                    minPositive = Math.min(minPositive, v);
                }
            }
        }
        for (double b : bounds.values()) {
            max = Math.max(max, finite(b));
            if (finite(b) > 0) {
                minPositive = Math.min(minPositive, b);
            }
        }
        boolean log = minPositive < Double.POSITIVE_INFINITY && max / minPositive > LOG_SCALE_RATIO;
        Axis y = log ? Axis.logarithmic(minPositive, max) : Axis.linear(0, Math.max(1, max * 1.08), 6);
        Axis x = Axis.linear(0, Math.max(1e-9, xMax * 1.05), 6);
        Canvas c = new Canvas(WIDTH, HEIGHT, title + (log ? " (log scale)" : ""));
        List<String> names = new ArrayList<>(values.keySet());
        int legendWidth = maxWidth(c.g, LABEL, names) + 40;
        Frame f = new Frame(80, WIDTH - legendWidth - 20, 50, HEIGHT - 60);
        c.grid(f, y, yLabel);
        c.xAxis(f, x, "request rate (requests/s)");
        Stroke old = c.g.getStroke();
        Stroke dashed = new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10, new float[] {6, 4}, 0);
        for (Map.Entry<String, Double> b : bounds.entrySet()) {
            int yPx = (int) y.toPixel(finite(b.getValue()), f.top, f.bottom);
            c.g.setColor(AXIS);
            c.g.setStroke(dashed);
            c.g.drawLine(f.left, yPx, f.right, yPx);
            c.g.setStroke(old);
            c.g.setFont(SMALL);
            c.g.drawString(b.getKey(), f.left + 6, yPx - 4);
        }
        for (int i = 0; i < names.size(); i++) {
            double[] xs = ratesPerSecond.get(names.get(i));
            double[] ys = values.get(names.get(i));
            Path2D.Double path = new Path2D.Double();
            c.g.setColor(PALETTE[i % PALETTE.length]);
            c.g.setStroke(seriesStroke(i));
            for (int k = 0; k < xs.length; k++) {
                double xpx = x.toPixelX(finite(xs[k]), f.left, f.right);
                double ypx = y.toPixel(finite(ys[k]), f.top, f.bottom);
                if (k == 0) {
                    path.moveTo(xpx, ypx);
                } else {
                    path.lineTo(xpx, ypx);
                }
                c.g.fillOval((int) xpx - 3, (int) ypx - 3, 7, 7);
            }
            c.g.draw(path);
        }
        c.g.setStroke(old);
        c.lineLegend(names, WIDTH - 10, f.top);
        c.write(out);
    }

    /** Solid lines for the first {@code PALETTE.length} series, dashed for the next ones (same colours again). */
    private static Stroke seriesStroke(int i) {
        return i < PALETTE.length
                ? new BasicStroke(2f)
                : new BasicStroke(2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10, new float[] {7, 4}, 0);
    }

    // --- from the engine's results -----------------------------------------------------------------------------

    /** Which per-backend quantity of {@link RunResult.LoadSample} {@link #loadOverTime(Path, List, Load)} draws. */
    public enum Load {
        IN_FLIGHT("in flight (running + waiting)"),
        RUNNING("running"),
        WAITING("waiting"),
        KV_USAGE("KV usage");

        final String label;

        Load(String label) {
            this.label = label;
        }
    }

    /** Hit rate per run (bars, in list order) with the given bounds as dashed lines. */
    public static void hitRates(Path out, List<RunResult> runs, Map<String, Double> bounds) {
        Map<String, Double> hits = new LinkedHashMap<>();
        for (RunResult r : runs) {
            hits.put(r.router(), r.hitRate());
        }
        hitRates(
                out,
                "Prefix-cache hit rate per router (token-weighted) — " + workloads(runs),
                hits,
                bounds,
                WIDTH,
                HEIGHT);
    }

    /** TTFT p50/p90/p99 per run. */
    public static void ttftPercentiles(Path out, List<RunResult> runs) {
        Map<String, double[]> ttft = new LinkedHashMap<>();
        for (RunResult r : runs) {
            ttft.put(
                    r.router(),
                    new double[] {r.ttft().p50(), r.ttft().p90(), r.ttft().p99()});
        }
        ttftPercentiles(out, "TTFT percentiles per router — " + workloads(runs), ttft, WIDTH, HEIGHT);
    }

    /** One panel per run from its load samples; runs without samples are left out. */
    public static void loadOverTime(Path out, List<RunResult> runs, Load what) {
        Map<String, double[]> times = new LinkedHashMap<>();
        Map<String, double[][]> load = new LinkedHashMap<>();
        for (RunResult r : runs) {
            List<RunResult.LoadSample> samples = r.samples();
            if (samples.isEmpty()) {
                continue;
            }
            int n = samples.size();
            int backends = samples.get(0).running().length;
            double[] t = new double[n];
            double[][] lines = new double[backends][n];
            for (int k = 0; k < n; k++) {
                RunResult.LoadSample s = samples.get(k);
                t[k] = s.timeMs() / 1000.0;
                for (int b = 0; b < backends; b++) {
                    lines[b][k] = switch (what) {
                        case IN_FLIGHT -> s.running()[b] + s.waiting()[b];
                        case RUNNING -> s.running()[b];
                        case WAITING -> s.waiting()[b];
                        case KV_USAGE -> s.kvUsage()[b];
                    };
                }
            }
            times.put(r.router(), t);
            load.put(r.router(), lines);
        }
        if (load.isEmpty()) {
            throw new IllegalArgumentException("no run has load samples");
        }
        loadOverTime(
                out,
                "Per-backend " + what.label + " over time — " + workloads(runs),
                what.label,
                times,
                load,
                WIDTH,
                loadOverTimeHeight(load.size()));
    }

    /**
     * The three charts of a comparison into {@code dir}: {@code hit-rate.png}, {@code ttft.png} and (when any run has
     * samples) {@code load.png}; returns the files written.
     */
    public static List<Path> writeAll(Path dir, List<RunResult> runs, Map<String, Double> bounds) {
        if (runs.isEmpty()) {
            throw new IllegalArgumentException("runs must not be empty");
        }
        List<Path> written = new ArrayList<>();
        Path hit = dir.resolve("hit-rate.png");
        hitRates(hit, runs, bounds);
        written.add(hit);
        Path ttft = dir.resolve("ttft.png");
        ttftPercentiles(ttft, runs);
        written.add(ttft);
        if (runs.stream().anyMatch(r -> !r.samples().isEmpty())) {
            Path load = dir.resolve("load.png");
            loadOverTime(load, runs, Load.IN_FLIGHT);
            written.add(load);
        }
        return written;
    }

    private static String workloads(List<RunResult> runs) {
        return runs.stream()
                .map(RunResult::workload)
                .distinct()
                .reduce((a, b) -> a + ", " + b)
                .orElse("");
    }

    // ---------------------------------------------------------------------------------------------------------

    private static Color color(int i, int n) {
        if (n <= PALETTE.length) {
            return PALETTE[i];
        }
        return Color.getHSBColor((float) i / n, 0.75f, 0.85f);
    }

    private static double finite(Double v) {
        return v == null || v.isNaN() || v.isInfinite() ? 0.0 : v;
    }

    private static void requireNonEmpty(Map<String, ?> map, String what) {
        if (map == null || map.isEmpty()) {
            throw new IllegalArgumentException(what + " must not be empty");
        }
    }

    /**
     * Baselines for labels that want to sit at {@code wanted} (pixels, any order), moved apart so that consecutive
     * ones are at least {@code lineHeight} apart and kept within [{@code top}, {@code bottom}] when there is room;
     * returned in the order given.
     */
    static int[] spreadLabels(int[] wanted, int lineHeight, int top, int bottom) {
        Integer[] order = new Integer[wanted.length];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> wanted[a] != wanted[b] ? Integer.compare(wanted[a], wanted[b]) : a - b);
        int[] placed = new int[wanted.length];
        int previous = Integer.MIN_VALUE / 2;
        for (int i : order) {
            placed[i] = Math.max(Math.max(wanted[i], top), previous + lineHeight);
            previous = placed[i];
        }
        int next = Integer.MAX_VALUE / 2;
        for (int k = order.length - 1; k >= 0; k--) {
            int i = order[k];
            placed[i] = Math.min(Math.min(placed[i], bottom), next - lineHeight);
            next = placed[i];
        }
        return placed;
    }

    private static int maxWidth(Graphics2D g, Font font, Iterable<String> texts) {
        FontMetrics fm = g.getFontMetrics(font);
        int w = 0;
        for (String s : texts) {
            w = Math.max(w, fm.stringWidth(s + " 100.0%"));
        }
        return w;
    }

    /** The plot area in pixels. */
    private record Frame(int left, int right, int top, int bottom) {
        int width() {
            return right - left;
        }
    }

    private static final class Canvas {
        final BufferedImage image;
        final Graphics2D g;
        final int width;
        final int height;

        Canvas(int width, int height, String title) {
            if (width < 200 || height < 150) {
                throw new IllegalArgumentException("image too small: " + width + "x" + height);
            }
            this.width = width;
            this.height = height;
            image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
            g = image.createGraphics();
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, width, height);
            g.setFont(TITLE);
            g.setColor(Color.BLACK);
            FontMetrics fm = g.getFontMetrics();
            g.drawString(title, (width - fm.stringWidth(title)) / 2, 28);
        }

        /** A category chart's frame: grid, y axis, category labels below (rotated when they do not fit). */
        Frame frame(int leftMargin, int rightMargin, List<String> categories, Axis y, String yLabel) {
            FontMetrics fm = g.getFontMetrics(LABEL);
            int widest = 0;
            for (String s : categories) {
                widest = Math.max(widest, fm.stringWidth(s));
            }
            double slot = (double) (width - leftMargin - rightMargin) / categories.size();
            boolean rotate = widest > slot - 6;
            double angle = Math.toRadians(-30);
            int labelHeight = rotate ? (int) (widest * Math.sin(-angle) + fm.getHeight()) + 8 : fm.getHeight() + 8;
            Frame f = new Frame(leftMargin, width - rightMargin, 50, height - 12 - labelHeight);
            grid(f, y, yLabel);
            g.setFont(LABEL);
            g.setColor(Color.BLACK);
            for (int i = 0; i < categories.size(); i++) {
                String s = categories.get(i);
                int cx = (int) (f.left + slot * i + slot / 2);
                if (rotate) {
                    AffineTransform old = g.getTransform();
                    g.translate(cx + 4, f.bottom + fm.getAscent() + 2);
                    g.rotate(angle);
                    g.drawString(s, -fm.stringWidth(s), 0);
                    g.setTransform(old);
                } else {
                    g.drawString(s, cx - fm.stringWidth(s) / 2, f.bottom + fm.getAscent() + 4);
                }
            }
            return f;
        }

        /** Horizontal grid lines with y tick labels, the frame's axes and the rotated y label. */
        void grid(Frame f, Axis y, String yLabel) {
            g.setFont(SMALL);
            FontMetrics fm = g.getFontMetrics();
            for (double t : y.ticks()) {
                int yPx = (int) Math.round(y.toPixel(t, f.top, f.bottom));
                g.setColor(GRID);
                g.drawLine(f.left, yPx, f.right, yPx);
                g.setColor(AXIS);
                String s = Axis.format(t);
                g.drawString(s, f.left - 6 - fm.stringWidth(s), yPx + fm.getAscent() / 2 - 1);
            }
            g.setColor(AXIS);
            g.drawLine(f.left, f.top, f.left, f.bottom);
            g.drawLine(f.left, f.bottom, f.right, f.bottom);
            if (yLabel != null) {
                g.setFont(LABEL);
                AffineTransform old = g.getTransform();
                int w = g.getFontMetrics().stringWidth(yLabel);
                g.translate(f.left - 44, (f.top + f.bottom) / 2 + w / 2);
                g.rotate(-Math.PI / 2);
                g.drawString(yLabel, 0, 0);
                g.setTransform(old);
            }
        }

        /** x tick labels of a numeric x axis, and its label when non-null. */
        void xAxis(Frame f, Axis x, String xLabel) {
            g.setFont(SMALL);
            FontMetrics fm = g.getFontMetrics();
            g.setColor(AXIS);
            for (double t : x.ticks()) {
                int xPx = (int) Math.round(x.toPixelX(t, f.left, f.right));
                g.drawLine(xPx, f.bottom, xPx, f.bottom + 4);
                String s = Axis.format(t);
                g.drawString(s, xPx - fm.stringWidth(s) / 2, f.bottom + 4 + fm.getAscent());
            }
            if (xLabel != null) {
                g.setFont(LABEL);
                int w = g.getFontMetrics().stringWidth(xLabel);
                g.drawString(xLabel, (f.left + f.right - w) / 2, f.bottom + 32);
            }
        }

        /** A boxed legend whose top right corner is at ({@code right}, {@code top}). */
        void legend(List<String> labels, int right, int top) {
            Point corner = legendBox(labels, right, top, 36);
            FontMetrics fm = g.getFontMetrics();
            int lineH = fm.getHeight() + 2;
            int x = corner.x;
            int y = corner.y;
            for (int i = 0; i < labels.size(); i++) {
                g.setColor(color(i, labels.size()));
                g.fillRect(x + 8, y + 6 + i * lineH + 2, 14, fm.getAscent() - 2);
                g.setColor(Color.BLACK);
                g.drawString(labels.get(i), x + 28, y + 6 + i * lineH + fm.getAscent());
            }
        }

        /** A boxed legend of line samples (colour and stroke as {@link #seriesStroke}), top right at (right, top). */
        void lineLegend(List<String> labels, int right, int top) {
            Point corner = legendBox(labels, right, top, 46);
            FontMetrics fm = g.getFontMetrics();
            int lineH = fm.getHeight() + 2;
            int x = corner.x;
            int y = corner.y;
            Stroke old = g.getStroke();
            for (int i = 0; i < labels.size(); i++) {
                int mid = y + 6 + i * lineH + fm.getAscent() / 2 + 1;
                g.setColor(PALETTE[i % PALETTE.length]);
                g.setStroke(seriesStroke(i));
                g.drawLine(x + 6, mid, x + 30, mid);
                g.setStroke(old);
                g.setColor(Color.BLACK);
                g.drawString(labels.get(i), x + 38, y + 6 + i * lineH + fm.getAscent());
            }
        }

        /**
         * The white, framed box of a legend whose top right corner is at ({@code right}, {@code top}), wide enough for
         * the labels and {@code sampleWidth} more; returns the box's top left corner with the label font set.
         */
        private Point legendBox(List<String> labels, int right, int top, int sampleWidth) {
            g.setFont(LABEL);
            FontMetrics fm = g.getFontMetrics();
            int w = 0;
            for (String s : labels) {
                w = Math.max(w, fm.stringWidth(s));
            }
            int boxW = w + sampleWidth;
            int lineH = fm.getHeight() + 2;
            int x = right - boxW - 6;
            int y = top + 6;
            g.setColor(Color.WHITE);
            g.fillRect(x, y, boxW, lineH * labels.size() + 8);
            g.setColor(GRID);
            g.drawRect(x, y, boxW, lineH * labels.size() + 8);
            return new Point(x, y);
        }

        /** A legend laid out in rows from ({@code left}, {@code top}); returns the y below it. */
        int legendRow(List<String> labels, int left, int top, int maxWidth) {
            g.setFont(LABEL);
            FontMetrics fm = g.getFontMetrics();
            int x = left;
            int y = top;
            for (int i = 0; i < labels.size(); i++) {
                int w = 22 + fm.stringWidth(labels.get(i)) + 16;
                if (x + w > left + maxWidth && x > left) {
                    x = left;
                    y += fm.getHeight() + 2;
                }
                g.setColor(color(i, labels.size()));
                g.fillRect(x, y + 2, 14, fm.getAscent() - 2);
                g.setColor(Color.BLACK);
                g.drawString(labels.get(i), x + 20, y + fm.getAscent());
                x += w;
            }
            return y + fm.getHeight() + 4;
        }

        void write(Path out) {
            g.dispose();
            try {
                Path parent = out.toAbsolutePath().getParent();
                if (parent != null) {
                    Files.createDirectories(parent);
                }
                if (!ImageIO.write(image, "png", out.toFile())) {
                    throw new IllegalStateException("no PNG writer");
                }
            } catch (IOException e) {
                throw new UncheckedIOException("writing " + out, e);
            }
        }
    }
}
