package io.ailb.emulator;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock that moves only when told to: simulators and tests get reproducible time (WASI and proxy-wasm). */
public final class VirtualClock extends Clock {
    private Instant now;

    private VirtualClock(Instant start) {
        this.now = start;
    }

    public static VirtualClock startingAt(Instant start) {
        return new VirtualClock(start);
    }

    /** Moves time forward; callers that need ticks use {@link Gateway#advance(Duration)}. */
    public synchronized void advance(Duration step) {
        if (step.isNegative()) {
            throw new IllegalArgumentException("time cannot go back: " + step);
        }
        now = now.plus(step);
    }

    @Override
    public synchronized Instant instant() {
        return now;
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("a virtual clock is always UTC");
    }
}
