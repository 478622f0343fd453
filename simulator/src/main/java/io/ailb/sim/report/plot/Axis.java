package io.ailb.sim.report.plot;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** A value axis: linear with "nice" ticks, or logarithmic with decade ticks. */
final class Axis {
    final double min;
    final double max;
    final boolean log;
    private final double step;

    private Axis(double min, double max, boolean log, double step) {
        this.min = min;
        this.max = max;
        this.log = log;
        this.step = step;
    }

    /** Linear from {@code min} up to a nice value at or above {@code dataMax}, about {@code targetTicks} ticks. */
    static Axis linear(double min, double dataMax, int targetTicks) {
        double span = dataMax - min;
        if (!(span > 0) || Double.isInfinite(span)) {
            span = min == 0 ? 1 : Math.abs(min);
        }
        double step = niceStep(span / Math.max(1, targetTicks));
        double max = min + Math.ceil(span / step - 1e-9) * step;
        return new Axis(min, max, false, step);
    }

    /** Logarithmic over whole decades covering [dataMinPositive, dataMax]. */
    static Axis logarithmic(double dataMinPositive, double dataMax) {
        double lo = Math.pow(10, Math.floor(Math.log10(dataMinPositive)));
        double hi = Math.pow(10, Math.ceil(Math.log10(dataMax)));
        if (hi <= lo) {
            hi = lo * 10;
        }
        return new Axis(lo, hi, true, 0);
    }

    static double niceStep(double raw) {
        double magnitude = Math.pow(10, Math.floor(Math.log10(raw)));
        double f = raw / magnitude;
        double nice = f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10;
        return nice * magnitude;
    }

    /** Where {@code v} lands between {@code bottomPx} (the minimum) and {@code topPx} (the maximum). */
    double toPixel(double v, int topPx, int bottomPx) {
        return bottomPx - fraction(v) * (bottomPx - topPx);
    }

    /** Where {@code v} lands between {@code leftPx} (the minimum) and {@code rightPx} (the maximum). */
    double toPixelX(double v, int leftPx, int rightPx) {
        return leftPx + fraction(v) * (rightPx - leftPx);
    }

    private double fraction(double v) {
        double f;
        if (log) {
            double clamped = Math.max(v, min);
            f = (Math.log10(clamped) - Math.log10(min)) / (Math.log10(max) - Math.log10(min));
        } else {
            f = (v - min) / (max - min);
        }
        return Math.max(0, Math.min(1, f));
    }

    List<Double> ticks() {
        List<Double> ticks = new ArrayList<>();
        if (log) {
            int decades = (int) Math.round(Math.log10(max / min));
            for (double d = min; d <= max * 1.0001; d *= 10) {
                ticks.add(d);
                if (decades <= 2 && d * 10 <= max * 1.0001) {
                    ticks.add(2 * d);
                    ticks.add(5 * d);
                }
            }
        } else {
            for (int i = 0; ; i++) {
                double t = min + i * step;
                if (t > max + step * 1e-6) {
                    break;
                }
                ticks.add(t);
            }
        }
        return ticks;
    }

    /** Compact: 0.25, 12, 1.5k, 20M. */
    static String format(double v) {
        double a = Math.abs(v);
        if (a >= 1e6) {
            return trim(v / 1e6) + "M";
        }
        if (a >= 1e4) {
            return trim(v / 1e3) + "k";
        }
        return trim(v);
    }

    private static String trim(double v) {
        String s = String.format(Locale.ROOT, Math.abs(v) >= 100 ? "%.0f" : "%.2f", v);
        if (s.contains(".")) {
            s = s.replaceAll("0+$", "").replaceAll("\\.$", "");
        }
        return s;
    }
}
