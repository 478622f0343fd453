package io.ailb.teavm.runtime;

/**
 * Bodies for {@code Integer/Long/Float/Double.sum/max/min}, which TeaVM 0.13.1's classlib lacks (only
 * {@code Integer.max/min} exist), so method references such as {@code Integer::sum} fail to compile.
 * {@code Math.max/min} are safe in Wasm: TeaVM compiles them without imports.
 */
public final class NumberShims {
    private NumberShims() {}

    public static int sum(int a, int b) {
        return a + b;
    }

    public static long sum(long a, long b) {
        return a + b;
    }

    public static float sum(float a, float b) {
        return a + b;
    }

    public static double sum(double a, double b) {
        return a + b;
    }

    public static long max(long a, long b) {
        return Math.max(a, b);
    }

    public static long min(long a, long b) {
        return Math.min(a, b);
    }

    public static float max(float a, float b) {
        return Math.max(a, b);
    }

    public static float min(float a, float b) {
        return Math.min(a, b);
    }

    public static double max(double a, double b) {
        return Math.max(a, b);
    }

    public static double min(double a, double b) {
        return Math.min(a, b);
    }
}
