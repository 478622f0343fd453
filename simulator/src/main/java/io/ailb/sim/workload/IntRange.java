package io.ailb.sim.workload;

import java.util.Random;

/** Whole numbers from {@code min} to {@code max} inclusive, drawn uniformly; {@code N} or {@code MIN-MAX} as a flag. */
public record IntRange(int min, int max) {
    public static IntRange of(int value) {
        return new IntRange(value, value);
    }

    /** Reads {@code N} or {@code MIN-MAX} (non-negative integers) given to {@code flag}. */
    public static IntRange parse(String flag, String text) {
        String t = text.strip();
        int dash = t.indexOf('-');
        try {
            if (dash < 0) {
                return of(nonNegative(t));
            }
            return new IntRange(nonNegative(t.substring(0, dash)), nonNegative(t.substring(dash + 1)));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    flag + " wants N or MIN-MAX (non-negative integers), got '" + text + "'", e);
        }
    }

    private static int nonNegative(String digits) {
        if (digits.isEmpty() || !digits.chars().allMatch(Character::isDigit)) {
            throw new NumberFormatException(digits);
        }
        return Integer.parseInt(digits);
    }

    /** Requires the caller to have checked {@code max - min} fits an int (the specs cap every range far below). */
    public int draw(Random random) {
        return min == max ? min : min + random.nextInt(max - min + 1);
    }

    public double mean() {
        return (min + (double) max) / 2;
    }

    @Override
    public String toString() {
        return min == max ? Integer.toString(min) : min + "-" + max;
    }
}
