package io.ailb.emulator;

import java.time.Clock;

/** The tick period a VM's guest asked for ({@code proxy_set_tick_period_milliseconds}) and when it is due next. */
final class TickTimer {
    private final Clock clock;
    private int periodMillis;
    private long nextAtMillis = Long.MAX_VALUE;

    TickTimer(Clock clock) {
        this.clock = clock;
    }

    /** A period of 0 (or less) stops the ticks. */
    void setPeriod(int millis) {
        periodMillis = Math.max(0, millis);
        nextAtMillis = periodMillis == 0 ? Long.MAX_VALUE : clock.millis() + periodMillis;
    }

    int periodMillis() {
        return periodMillis;
    }

    /** A tick fires now: the next is one period later. */
    void fired() {
        nextAtMillis = clock.millis() + periodMillis;
    }

    /** When the next tick is due; {@code Long.MAX_VALUE} without a period. */
    long nextAtMillis() {
        return nextAtMillis;
    }
}
