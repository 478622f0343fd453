package io.ailb.sim.workload;

import io.ailb.sim.model.SimRequest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Function;

/**
 * Requests to replay. Open loop ({@code concurrency == 0}): {@link #requests()} arrive at their {@code arrivalMs}.
 * Closed loop: {@link #sessions()} run {@code concurrency} at a time; a session's next turn is sent {@code thinkMs}
 * after its previous turn completes, a new session starts when one ends; arrival times in the stored requests are
 * placeholders (0) — the engine stamps the real ones.
 *
 * <p>Stored requests may carry an empty body: the body is rendered by {@link #materialize} when the request is sent
 * (a Mooncake replay would otherwise hold gigabytes of text). {@link #requests()} (block ids, token counts, order)
 * is what bounds are computed from.
 */
public final class Workload {
    private final String name;
    private final List<SimRequest> requests;
    private final List<List<SimRequest>> sessions;
    private final int concurrency;
    private final double thinkMs;
    private final Function<SimRequest, String> bodies;
    private final double unstreamedShare;
    private final long unstreamedSeed;
    private final boolean answeredTurns;

    private Workload(
            String name,
            List<SimRequest> requests,
            List<List<SimRequest>> sessions,
            int concurrency,
            double thinkMs,
            Function<SimRequest, String> bodies,
            double unstreamedShare,
            long unstreamedSeed,
            boolean answeredTurns) {
        this.name = name;
        this.requests = List.copyOf(requests);
        this.sessions = sessions;
        this.concurrency = concurrency;
        this.thinkMs = thinkMs;
        this.bodies = bodies;
        this.unstreamedShare = unstreamedShare;
        this.unstreamedSeed = unstreamedSeed;
        this.answeredTurns = answeredTurns;
    }

    /**
     * The same requests with a {@code share} of them (drawn per request id from {@code seed}, the same ones at every
     * rate and for every router) sent with {@code "stream": false}: their answers reach the gateway only whole.
     */
    public Workload withUnstreamedShare(double share, long seed) {
        if (!(share >= 0 && share <= 1)) {
            throw new IllegalArgumentException("unstreamed share must be in [0, 1], got " + share);
        }
        return new Workload(name, requests, sessions, concurrency, thinkMs, bodies, share, seed, answeredTurns);
    }

    /**
     * The same requests, each sent no sooner than the earlier request it continues has completed
     * ({@link #previousTurns()}): a client sends a conversation's next turn once it has the answer it sends back. Open
     * loop only (a closed loop always waits). Without it a request's arrival is fixed in advance, and under overload a
     * turn can arrive carrying an answer its engine is still generating, which no client can send.
     */
    public Workload withAnsweredTurns(boolean value) {
        return new Workload(
                name, requests, sessions, concurrency, thinkMs, bodies, unstreamedShare, unstreamedSeed, value);
    }

    public boolean answeredTurns() {
        return answeredTurns;
    }

    /**
     * Request id → the id of the earlier request it continues: the session's previous request, or for a request
     * without a session (the Mooncake traces) the latest earlier request sharing its longest prefix of more than one
     * block (the first block of those traces opens nearly every prompt; a longer shared prefix is a conversation's
     * history). Requests in arrival order.
     */
    public Map<Long, Long> previousTurns() {
        Map<Long, Long> previous = new HashMap<>();
        Map<String, Long> lastOfSession = new HashMap<>();
        Map<Long, Long> latestWithBlock = new HashMap<>();
        for (SimRequest r : requests) {
            if (r.sessionId() != null) {
                Long last = lastOfSession.put(r.sessionId(), r.id());
                if (last != null) {
                    previous.put(r.id(), last);
                }
                continue;
            }
            List<Long> ids = r.blockIds();
            for (int i = ids.size() - 1; i >= 1; i--) {
                Long holder = latestWithBlock.get(ids.get(i));
                if (holder != null) {
                    previous.put(r.id(), holder);
                    break;
                }
            }
            for (Long id : ids) {
                latestWithBlock.put(id, r.id());
            }
        }
        return previous;
    }

    /** The share of requests sent unstreamed (0 = every request streams, as the generators write them). */
    public double unstreamedShare() {
        return unstreamedShare;
    }

    /** Requests arriving at their own times; {@code bodies} renders a body when the stored one is empty (or null). */
    public static Workload openLoop(String name, List<SimRequest> requests, Function<SimRequest, String> bodies) {
        return new Workload(name, requests, List.of(), 0, 0, bodies, 0, 0, false);
    }

    /** Sessions of turns, {@code concurrency} sessions at a time. */
    public static Workload closedLoop(
            String name,
            List<List<SimRequest>> sessions,
            int concurrency,
            double thinkMs,
            Function<SimRequest, String> bodies) {
        if (concurrency < 1) {
            throw new IllegalArgumentException("concurrency must be at least 1");
        }
        List<List<SimRequest>> copy = new ArrayList<>();
        List<SimRequest> all = new ArrayList<>();
        for (List<SimRequest> s : sessions) {
            copy.add(List.copyOf(s));
        }
        // Nominal order: the order turns would be sent if every turn took the same time.
        int maxTurns = copy.stream().mapToInt(List::size).max().orElse(0);
        for (int wave = 0; wave < copy.size(); wave += concurrency) {
            List<List<SimRequest>> batch = copy.subList(wave, Math.min(copy.size(), wave + concurrency));
            for (int t = 0; t < maxTurns; t++) {
                for (List<SimRequest> s : batch) {
                    if (t < s.size()) {
                        all.add(s.get(t));
                    }
                }
            }
        }
        return new Workload(name, all, List.copyOf(copy), concurrency, thinkMs, bodies, 0, 0, false);
    }

    public String name() {
        return name;
    }

    /** Every request, in arrival order (open loop) or nominal order (closed loop). */
    public List<SimRequest> requests() {
        return requests;
    }

    public boolean closedLoop() {
        return concurrency > 0;
    }

    public List<List<SimRequest>> sessions() {
        return sessions;
    }

    public int concurrency() {
        return concurrency;
    }

    public double thinkMs() {
        return thinkMs;
    }

    /** The request as sent: the given arrival time and a rendered body. */
    public SimRequest materialize(SimRequest stored, long arrivalMs) {
        String body = stored.body().isEmpty() && bodies != null ? bodies.apply(stored) : stored.body();
        if (unstreamedShare > 0
                && new SplittableRandom(unstreamedSeed ^ (stored.id() * 0x9E3779B97F4A7C15L)).nextDouble()
                        < unstreamedShare) {
            body = StreamFlag.unstreamed(body);
        }
        if (arrivalMs == stored.arrivalMs() && body.equals(stored.body())) {
            return stored;
        }
        return new SimRequest(
                stored.id(),
                arrivalMs,
                stored.sessionId(),
                stored.inputTokens(),
                stored.outputTokens(),
                stored.blockTokens(),
                stored.blockIds(),
                body,
                stored.outputBlockIds());
    }

    /** The first {@code limit} requests (open loop) or sessions (closed loop); 0 = all. */
    public Workload limit(int limit) {
        if (limit <= 0) {
            return this;
        }
        if (closedLoop()) {
            return limit >= sessions.size()
                    ? this
                    : closedLoop(name, sessions.subList(0, limit), concurrency, thinkMs, bodies)
                            .withUnstreamedShare(unstreamedShare, unstreamedSeed);
        }
        return limit >= requests.size()
                ? this
                : new Workload(
                        name,
                        requests.subList(0, limit),
                        List.of(),
                        0,
                        0,
                        bodies,
                        unstreamedShare,
                        unstreamedSeed,
                        answeredTurns);
    }

    public long totalInputTokens() {
        long sum = 0;
        for (SimRequest r : requests) {
            sum += r.inputTokens();
        }
        return sum;
    }
}
