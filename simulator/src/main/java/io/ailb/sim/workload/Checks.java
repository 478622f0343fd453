package io.ailb.sim.workload;

/** Parameter checks of the generators; each message names the command-line flag the value comes from. */
final class Checks {
    /** Longer than any model's context window: a larger prompt is a typo, not a workload. */
    static final int MAX_PROMPT_TOKENS = 2_000_000;

    static final int MAX_SESSIONS = 1_000_000;
    static final double MAX_RATE = 1_000_000;
    static final double MAX_THINK_MS = 86_400_000;

    private Checks() {}

    static void count(String flag, long value, long lowest, long highest) {
        if (value < lowest || value > highest) {
            throw new IllegalArgumentException(
                    flag + " must be an integer from " + lowest + " to " + highest + ", got " + value);
        }
    }

    static void number(String flag, double value, double lowest, double highest) {
        if (!(value >= lowest && value <= highest)) {
            throw new IllegalArgumentException(
                    flag + " must be a number from " + trim(lowest) + " to " + trim(highest) + ", got " + value);
        }
    }

    static void positive(String flag, double value, double highest) {
        if (!(value > 0 && value <= highest)) {
            throw new IllegalArgumentException(
                    flag + " must be a number above 0 and at most " + trim(highest) + ", got " + value);
        }
    }

    static void range(String flag, IntRange range, int lowest, int highest) {
        if (range.min() < lowest || range.max() > highest || range.min() > range.max()) {
            throw new IllegalArgumentException(
                    flag + " must be N or MIN-MAX with " + lowest + " <= MIN <= MAX <= " + highest + ", got " + range);
        }
    }

    static void prompt(String what, long tokens) {
        if (tokens > MAX_PROMPT_TOKENS) {
            throw new IllegalArgumentException(what + " can reach " + tokens + " prompt tokens, more than "
                    + MAX_PROMPT_TOKENS + ": lower the flags that make it up");
        }
    }

    private static String trim(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }
}
