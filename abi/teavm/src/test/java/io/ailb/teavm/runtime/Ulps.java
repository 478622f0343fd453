package io.ailb.teavm.runtime;

/** Error of a floating-point result measured in units in the last place of the expected value. */
public final class Ulps {
    private Ulps() {}

    public static double between(double actual, double expected) {
        if (Double.isNaN(expected) || Double.isInfinite(expected) || expected == 0) {
            return Double.compare(actual, expected) == 0 || actual == expected ? 0 : Double.POSITIVE_INFINITY;
        }
        return Math.abs(actual - expected) / Math.ulp(expected);
    }
}
