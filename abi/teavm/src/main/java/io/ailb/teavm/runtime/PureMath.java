package io.ailb.teavm.runtime;

/**
 * Pure-Java {@code exp} and {@code log} for the Wasm guest. TeaVM implements {@code Math.exp/log} as imports from a
 * {@code teavmMath} module that no proxy-wasm host provides; the TeaVM plugin redirects them here. Both functions
 * reduce the argument with a split ln 2 (exact high part) and evaluate a short series; the result is within about
 * one ulp of {@link StrictMath} (verified by {@code PureMathTest}). Uses no {@code Math} method, so it cannot
 * reintroduce an import.
 */
public final class PureMath {
    /** ln 2 cut to 32 significant bits, so that {@code k * LN2_HI} is exact for every exponent k. */
    private static final double LN2_HI = 6.93147180369123816490e-01;
    /** ln 2 - LN2_HI. */
    private static final double LN2_LO = 1.90821492927058770002e-10;

    private static final double INV_LN2 = 1.44269504088896338700e+00;
    private static final double SQRT2 = 1.41421356237309514547e+00;
    /** Largest argument whose exponential is finite. */
    private static final double EXP_OVERFLOW = 7.09782712893383973096e+02;
    /** Below this the exponential rounds to zero even as a subnormal. */
    private static final double EXP_UNDERFLOW = -7.45133219101941108420e+02;

    private static final long EXPONENT_MASK = 0x7ff0000000000000L;
    private static final long MANTISSA_MASK = 0x000fffffffffffffL;
    private static final long SMALLEST_NORMAL_BITS = 0x0010000000000000L;

    private PureMath() {}

    public static double exp(double x) {
        if (x != x) {
            return x;
        }
        if (x > EXP_OVERFLOW) {
            return Double.POSITIVE_INFINITY;
        }
        if (x < EXP_UNDERFLOW) {
            return 0.0;
        }
        if (x > -0x1p-54 && x < 0x1p-54) {
            return 1.0 + x;
        }
        // x = k ln2 + r with |r| <= ln2 / 2; exp(x) = 2^k exp(r).
        int k = (int) (x * INV_LN2 + (x < 0 ? -0.5 : 0.5));
        double r = (x - k * LN2_HI) - k * LN2_LO;
        // exp(r) - 1 - r as a Taylor series to r^14; the first omitted term is below 1e-17 for |r| <= 0.347.
        double p = 1.0 / 87178291200.0; // 1/14!
        p = 1.0 / 6227020800.0 + r * p; // 1/13!
        p = 1.0 / 479001600.0 + r * p; // 1/12!
        p = 1.0 / 39916800.0 + r * p; // 1/11!
        p = 1.0 / 3628800.0 + r * p; // 1/10!
        p = 1.0 / 362880.0 + r * p; // 1/9!
        p = 1.0 / 40320.0 + r * p; // 1/8!
        p = 1.0 / 5040.0 + r * p; // 1/7!
        p = 1.0 / 720.0 + r * p; // 1/6!
        p = 1.0 / 120.0 + r * p; // 1/5!
        p = 1.0 / 24.0 + r * p; // 1/4!
        p = 1.0 / 6.0 + r * p; // 1/3!
        p = 0.5 + r * p; // 1/2!
        double y = 1.0 + (r + r * r * p);
        return scaleByPowerOfTwo(y, k);
    }

    public static double log(double x) {
        if (x != x || x < 0) {
            return Double.NaN;
        }
        if (x == 0) {
            return Double.NEGATIVE_INFINITY;
        }
        if (x == Double.POSITIVE_INFINITY) {
            return x;
        }
        long bits = Double.doubleToRawLongBits(x);
        int k = 0;
        if (bits < SMALLEST_NORMAL_BITS) {
            bits = Double.doubleToRawLongBits(x * 0x1p54);
            k = -54;
        }
        k += (int) ((bits & EXPONENT_MASK) >>> 52) - 1023;
        // x = 2^k m with m in [sqrt(1/2), sqrt(2)); f = m - 1 is exact.
        double m = Double.longBitsToDouble((bits & MANTISSA_MASK) | 0x3ff0000000000000L);
        if (m > SQRT2) {
            m *= 0.5;
            k++;
        }
        double f = m - 1.0;
        // log(1+f) = 2 atanh(s) with s = f/(2+f) = f - f^2/2 + s (f^2/2 + R), R = sum 2 s^(2j) / (2j+1).
        double s = f / (2.0 + f);
        double z = s * s;
        double r = 2.0 / 21;
        r = 2.0 / 19 + z * r;
        r = 2.0 / 17 + z * r;
        r = 2.0 / 15 + z * r;
        r = 2.0 / 13 + z * r;
        r = 2.0 / 11 + z * r;
        r = 2.0 / 9 + z * r;
        r = 2.0 / 7 + z * r;
        r = 2.0 / 5 + z * r;
        r = 2.0 / 3 + z * r;
        r *= z;
        double halfSquare = 0.5 * f * f;
        double dk = k;
        return dk * LN2_HI - ((halfSquare - (s * (halfSquare + r) + dk * LN2_LO)) - f);
    }

    /** y * 2^k for y in [0.5, 2] and the k range of {@link #exp}; the product may end up subnormal. */
    private static double scaleByPowerOfTwo(double y, int k) {
        if (k > 1023) {
            return y * powerOfTwo(k - 1) * 2.0;
        }
        if (k < -1022) {
            return y * powerOfTwo(k + 1000) * 0x1p-1000;
        }
        return y * powerOfTwo(k);
    }

    private static double powerOfTwo(int n) {
        return Double.longBitsToDouble((long) (n + 1023) << 52);
    }
}
