package io.ailb.lb.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class RngTest {
    @Test
    void theSameSeedGivesTheSameSequence() {
        Rng a = new Rng(7);
        Rng b = new Rng(7);
        for (int i = 0; i < 100; i++) {
            assertEquals(a.nextLong(), b.nextLong());
        }
    }

    @Test
    void seedZeroProducesTheSplitMix64ReferenceValue() {
        assertEquals(0xE220A8397B1DCDAFL, new Rng(0).nextLong());
    }

    @Test
    void nextIntStaysWithinItsBound() {
        Rng rng = new Rng(3);
        for (int i = 0; i < 10_000; i++) {
            int n = rng.nextInt(7);
            assertTrue(n >= 0 && n < 7, Integer.toString(n));
        }
    }

    @Test
    void nextIntSpreadsEvenlyOverItsBound() {
        Rng rng = new Rng(11);
        int[] counts = new int[4];
        for (int i = 0; i < 40_000; i++) {
            counts[rng.nextInt(4)]++;
        }
        for (int count : counts) {
            assertTrue(count > 9_500 && count < 10_500, Integer.toString(count));
        }
    }

    @Test
    void nextDoubleStaysInTheUnitInterval() {
        Rng rng = new Rng(5);
        for (int i = 0; i < 10_000; i++) {
            double d = rng.nextDouble();
            assertTrue(d >= 0 && d < 1, Double.toString(d));
        }
    }

    @Test
    void aNonPositiveBoundIsRejected() {
        assertThrows(IllegalArgumentException.class, () -> new Rng(1).nextInt(0));
    }
}
