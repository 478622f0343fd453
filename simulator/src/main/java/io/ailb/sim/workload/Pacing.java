package io.ailb.sim.workload;

import java.util.Random;

/**
 * When the requests of open-loop sessions are sent. Sessions start as a Poisson process of {@code sessionsPerSecond};
 * a session's next request follows the previous one by that request's nominal duration (its output tokens at
 * {@code decodeMsPerToken}, the pace of an idle instance) plus {@code thinkMs}. The engine replays arrivals at fixed
 * times (that is what lets a sweep overload the backends), so under load a request may be sent before the previous
 * one of its session has finished, as with any open-loop client.
 */
record Pacing(double sessionsPerSecond, double thinkMs, double decodeMsPerToken) {
    /** The start of the session after one that started at {@code previousMs}. */
    double nextStart(Random random, double previousMs) {
        return previousMs - Math.log(1.0 - random.nextDouble()) / sessionsPerSecond * 1000.0;
    }

    /** When the request after one sent at {@code arrivalMs} producing {@code outputTokens} is sent. */
    double next(double arrivalMs, int outputTokens) {
        return arrivalMs + outputTokens * decodeMsPerToken + thinkMs;
    }
}
