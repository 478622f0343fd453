package io.ailb.teavm.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import java.util.function.DoubleUnaryOperator;
import org.junit.jupiter.api.Test;

class PureMathTest {
    private static final int SAMPLES = 2_000_000;
    /** StrictMath (fdlibm) is itself within 1 ulp of the true value; we allow one more. */
    private static final double MAX_ULPS = 2;

    @Test
    void expMatchesStrictMathOverItsWholeFiniteRange() {
        SplittableRandom random = new SplittableRandom(1);
        assertWithinUlps("exp", PureMath::exp, StrictMath::exp, random, -745.2, 709.8);
        assertWithinUlps("exp", PureMath::exp, StrictMath::exp, random, -2, 2);
        assertWithinUlps("exp", PureMath::exp, StrictMath::exp, random, -1e-6, 1e-6);
    }

    @Test
    void logMatchesStrictMathForSmallNormalAndHugeArguments() {
        SplittableRandom random = new SplittableRandom(2);
        assertWithinUlps("log", PureMath::log, StrictMath::log, random, 0.5, 2);
        assertWithinUlps("log", PureMath::log, StrictMath::log, random, 1 - 1e-9, 1 + 1e-9);
        assertWithinUlps("log", PureMath::log, StrictMath::log, random, 0, 1e6);
        // Uniform over exponents: subnormals up to MAX_VALUE.
        double worst = 0;
        for (int i = 0; i < SAMPLES; i++) {
            double x = Double.longBitsToDouble(random.nextLong(1, 0x7ff0000000000000L));
            worst = Math.max(worst, Ulps.between(PureMath.log(x), StrictMath.log(x)));
        }
        assertTrue(worst <= MAX_ULPS, "log over all positive doubles: worst error " + worst + " ulps");
    }

    @Test
    void lnOnePlusXMatchesStrictMathForScoringInputs() {
        for (int requests = 0; requests <= 100_000; requests++) {
            double expected = StrictMath.log(1 + requests);
            assertTrue(Ulps.between(PureMath.log(1 + requests), expected) <= MAX_ULPS, "ln(1+" + requests + ")");
        }
    }

    @Test
    void expHandlesSpecialValuesLikeTheJdk() {
        assertEquals(1.0, PureMath.exp(0.0));
        assertEquals(1.0, PureMath.exp(-0.0));
        assertEquals(Double.POSITIVE_INFINITY, PureMath.exp(709.79));
        assertEquals(Double.POSITIVE_INFINITY, PureMath.exp(Double.POSITIVE_INFINITY));
        assertEquals(0.0, PureMath.exp(-745.2));
        assertEquals(0.0, PureMath.exp(Double.NEGATIVE_INFINITY));
        assertTrue(Double.isNaN(PureMath.exp(Double.NaN)));
        assertEquals(StrictMath.exp(709.78), PureMath.exp(709.78), Math.ulp(StrictMath.exp(709.78)));
        assertEquals(StrictMath.exp(-745.0), PureMath.exp(-745.0));
        assertEquals(StrictMath.exp(1.0), PureMath.exp(1.0));
    }

    @Test
    void logHandlesSpecialValuesLikeTheJdk() {
        assertEquals(0.0, PureMath.log(1.0));
        assertEquals(Double.NEGATIVE_INFINITY, PureMath.log(0.0));
        assertEquals(Double.NEGATIVE_INFINITY, PureMath.log(-0.0));
        assertEquals(Double.POSITIVE_INFINITY, PureMath.log(Double.POSITIVE_INFINITY));
        assertTrue(Double.isNaN(PureMath.log(-1.0)));
        assertTrue(Double.isNaN(PureMath.log(Double.NEGATIVE_INFINITY)));
        assertTrue(Double.isNaN(PureMath.log(Double.NaN)));
        assertEquals(StrictMath.log(Double.MIN_VALUE), PureMath.log(Double.MIN_VALUE));
        assertEquals(StrictMath.log(Double.MAX_VALUE), PureMath.log(Double.MAX_VALUE));
        assertEquals(StrictMath.log(Math.E), PureMath.log(Math.E));
    }

    private static void assertWithinUlps(
            String name,
            DoubleUnaryOperator actual,
            DoubleUnaryOperator expected,
            SplittableRandom random,
            double from,
            double to) {
        double worst = 0;
        double worstAt = Double.NaN;
        for (int i = 0; i < SAMPLES; i++) {
            double x = random.nextDouble(from, to);
            double error = Ulps.between(actual.applyAsDouble(x), expected.applyAsDouble(x));
            if (error > worst) {
                worst = error;
                worstAt = x;
            }
        }
        assertTrue(worst <= MAX_ULPS, name + " on [" + from + ", " + to + "]: " + worst + " ulps at " + worstAt);
    }
}
