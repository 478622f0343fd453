package io.ailb.sim.bench;

import java.util.Arrays;
import java.util.Locale;

/** Timing samples of one measured case: thread-CPU and wall-clock nanoseconds per operation. */
final class Samples {
    private long[] cpu = new long[64];
    private long[] wall = new long[64];
    private int size;

    void add(long cpuNanos, long wallNanos) {
        if (size == cpu.length) {
            cpu = Arrays.copyOf(cpu, size * 2);
            wall = Arrays.copyOf(wall, size * 2);
        }
        cpu[size] = cpuNanos;
        wall[size] = wallNanos;
        size++;
    }

    int size() {
        return size;
    }

    long medianCpu() {
        return median(cpu, size);
    }

    long medianWall() {
        return median(wall, size);
    }

    static long median(long[] values, int count) {
        if (count == 0) {
            return -1;
        }
        long[] sorted = Arrays.copyOf(values, count);
        Arrays.sort(sorted);
        return count % 2 == 1 ? sorted[count / 2] : (sorted[count / 2 - 1] + sorted[count / 2]) / 2;
    }

    /** Microseconds with a precision that suits the magnitude; "n/a" for a missing value. */
    static String micros(long nanos) {
        if (nanos < 0) {
            return "n/a";
        }
        double us = nanos / 1e3;
        if (us >= 10_000) {
            return String.format(Locale.ROOT, "%,.0f µs", us);
        }
        if (us >= 100) {
            return String.format(Locale.ROOT, "%.0f µs", us);
        }
        return String.format(Locale.ROOT, "%.1f µs", us);
    }

    static String millis(long nanos) {
        return nanos < 0 ? "n/a" : String.format(Locale.ROOT, "%.1f ms", nanos / 1e6);
    }

    static String ratio(long numerator, long denominator) {
        if (numerator < 0 || denominator <= 0) {
            return "n/a";
        }
        return String.format(Locale.ROOT, "%.1f×", (double) numerator / denominator);
    }

    static String bytes(long value) {
        if (value < 0) {
            return "n/a";
        }
        if (value >= 1 << 20) {
            return String.format(Locale.ROOT, "%.1f MiB (%,d bytes)", value / 1048576.0, value);
        }
        return String.format(Locale.ROOT, "%,d bytes", value);
    }
}
