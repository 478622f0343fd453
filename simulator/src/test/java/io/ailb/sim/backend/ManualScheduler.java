package io.ailb.sim.backend;

import io.ailb.sim.engine.EventScheduler;
import java.util.PriorityQueue;

/** A bare event loop for driving one backend by hand. */
final class ManualScheduler implements EventScheduler {
    private record Event(double time, long seq, Runnable action) {}

    private final PriorityQueue<Event> queue = new PriorityQueue<>(
            (a, b) -> a.time != b.time ? Double.compare(a.time, b.time) : Long.compare(a.seq, b.seq));
    private double now;
    private long seq;

    @Override
    public double nowMs() {
        return now;
    }

    @Override
    public void at(double timeMs, Runnable action) {
        queue.add(new Event(Math.max(now, timeMs), seq++, action));
    }

    /** Runs every event up to and including {@code timeMs}, then sets the clock there. */
    void runUntil(double timeMs) {
        while (!queue.isEmpty() && queue.peek().time <= timeMs) {
            Event e = queue.poll();
            now = e.time;
            e.action.run();
        }
        now = Math.max(now, timeMs);
    }

    void runAll() {
        runUntil(Double.MAX_VALUE / 2);
    }
}
