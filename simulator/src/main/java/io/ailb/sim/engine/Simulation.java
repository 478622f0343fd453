package io.ailb.sim.engine;

import io.ailb.sim.backend.Backend;
import io.ailb.sim.backend.BackendConfig;
import io.ailb.sim.model.BackendView;
import io.ailb.sim.model.ClusterView;
import io.ailb.sim.model.SimRequest;
import io.ailb.sim.report.RunResult;
import io.ailb.sim.router.MeasuredRouter;
import io.ailb.sim.router.Router;
import io.ailb.sim.router.baseline.Candidates;
import io.ailb.sim.workload.Workload;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Discrete-event replay of a {@link Workload} through one {@link Router} in front of fresh {@link Backend}s, on a
 * virtual clock: arrival → {@code router.route} → backend queue / batch → first token → completion. Deterministic for
 * a given workload, settings and (deterministic) router. {@link #runAll} runs several routers on identical workloads
 * with fresh, identical backends each.
 */
public final class Simulation implements EventScheduler {
    /**
     * Run settings shared by every router. {@code perBackend}, when not empty, gives each backend its own configuration
     * (services of different speed) and must hold one per backend; {@code backend} then describes the fastest kind.
     */
    public record Settings(
            int backends,
            BackendConfig backend,
            long seed,
            double sampleEveryMs,
            List<HealthChange> healthChanges,
            List<BackendConfig> perBackend,
            boolean lookaheadRegret) {
        public Settings {
            if (backends < 1) {
                throw new IllegalArgumentException("at least one backend");
            }
            healthChanges = List.copyOf(healthChanges);
            perBackend = List.copyOf(perBackend);
            if (!perBackend.isEmpty() && perBackend.size() != backends) {
                throw new IllegalArgumentException(
                        perBackend.size() + " backend configurations for " + backends + " backends");
            }
        }

        public Settings(
                int backends,
                BackendConfig backend,
                long seed,
                double sampleEveryMs,
                List<HealthChange> healthChanges) {
            this(backends, backend, seed, sampleEveryMs, healthChanges, List.of(), false);
        }

        public static Settings of(int backends, BackendConfig backend, long seed) {
            return new Settings(backends, backend, seed, 1000.0, List.of());
        }

        public Settings withSampleEveryMs(double value) {
            return new Settings(backends, backend, seed, value, healthChanges, perBackend, lookaheadRegret);
        }

        public Settings withHealthChanges(List<HealthChange> value) {
            return new Settings(backends, backend, seed, sampleEveryMs, value, perBackend, lookaheadRegret);
        }

        /** One configuration per backend, in backend order. */
        public Settings withPerBackend(List<BackendConfig> value) {
            return new Settings(backends, backend, seed, sampleEveryMs, healthChanges, value, lookaheadRegret);
        }

        /**
         * With {@code value}, each request's record carries its lookahead regret
         * ({@link RunResult.RequestRecord#lookaheadRegretMs}): every backend's lookahead TTFT is computed at every
         * arrival, which costs a walk of each queue.
         */
        public Settings withLookaheadRegret(boolean value) {
            return new Settings(backends, backend, seed, sampleEveryMs, healthChanges, perBackend, value);
        }

        /** The configuration of backend {@code index}. */
        public BackendConfig backendConfig(int index) {
            return perBackend.isEmpty() ? backend : perBackend.get(index);
        }
    }

    /** Failure injection: at {@code atMs} backend {@code backend} becomes (un)healthy. */
    public record HealthChange(double atMs, int backend, boolean healthy) {}

    /** Told about progress: requests finished out of the total. */
    public interface Progress {
        void update(String router, long done, long total);
    }

    private record Event(double timeMs, long seq, Runnable action) {}

    private final PriorityQueue<Event> events = new PriorityQueue<>(
            (a, b) -> a.timeMs != b.timeMs ? Double.compare(a.timeMs, b.timeMs) : Long.compare(a.seq, b.seq));
    private long nextSeq;
    private double now;

    private final Workload workload;
    private final Router router;
    private final Settings settings;
    private final Progress progress;
    private final List<Backend> backends = new ArrayList<>();
    private final List<BackendView> views;
    private final ClusterView cluster;
    private final Map<Long, Double> arrivals = new HashMap<>();
    private final Map<Long, Double> firstTokens = new HashMap<>();
    private final Map<Long, Integer> cachedById = new HashMap<>();
    private final Map<Long, Long> countedCachedById = new HashMap<>();
    private final Map<Long, Double> regretById = new HashMap<>();
    private final List<RunResult.RequestRecord> records = new ArrayList<>();
    private final List<RunResult.LoadSample> samples = new ArrayList<>();
    private final long[] requestsPerBackend;
    private long routedToUnhealthy;
    private long sent;
    private long completed;
    private long outputTokens;
    private double firstArrival = Double.NaN;
    private double lastCompletion;
    private int nextSession;
    private final Map<String, int[]> sessionCursor = new HashMap<>();
    private final Map<String, List<SimRequest>> sessionTurns = new HashMap<>();
    private final Set<Long> completedIds = new HashSet<>();
    private final Map<Long, List<SimRequest>> awaitingAnswer = new HashMap<>();
    private final long total;

    private Simulation(Workload workload, Router router, Settings settings, Progress progress) {
        this.workload = workload;
        this.router = router;
        this.settings = settings;
        this.progress = progress;
        Backend.Listener listener = new Backend.Listener() {
            @Override
            public void onFirstToken(Backend backend, SimRequest request, double nowMs, int cachedTokens) {
                firstToken(backend, request, nowMs, cachedTokens);
            }

            @Override
            public void onComplete(Backend backend, SimRequest request, double nowMs) {
                complete(backend, request, nowMs);
            }
        };
        for (int i = 0; i < settings.backends(); i++) {
            backends.add(Backend.create(i, settings.backendConfig(i), this, listener));
        }
        this.views = Collections.unmodifiableList(new ArrayList<>(backends));
        this.cluster = new ClusterView() {
            @Override
            public List<BackendView> backends() {
                return views;
            }

            @Override
            public long nowMs() {
                return (long) Math.floor(now);
            }
        };
        this.requestsPerBackend = new long[settings.backends()];
        this.total = workload.requests().size();
    }

    /** Replays {@code workload} through {@code router} (which must be fresh: it is used for this run only). */
    public static RunResult run(Workload workload, Router router, Settings settings, Progress progress) {
        Simulation sim = new Simulation(workload, router, settings, progress);
        try {
            return sim.execute();
        } finally {
            if (router instanceof AutoCloseable closeable) {
                try {
                    closeable.close();
                } catch (Exception e) {
                    throw new IllegalStateException("closing " + router.name(), e);
                }
            }
        }
    }

    public static RunResult run(Workload workload, Router router, Settings settings) {
        return run(workload, router, settings, null);
    }

    /** One run per router, each created fresh by its supplier, on the same workload and identical new backends. */
    public static List<RunResult> runAll(
            Workload workload, List<Supplier<Router>> routers, Settings settings, Progress progress) {
        List<RunResult> results = new ArrayList<>();
        for (Supplier<Router> factory : routers) {
            results.add(run(workload, factory.get(), settings, progress));
        }
        return results;
    }

    @Override
    public double nowMs() {
        return now;
    }

    @Override
    public void at(double timeMs, Runnable action) {
        events.add(new Event(Math.max(timeMs, now), nextSeq++, action));
    }

    private RunResult execute() {
        for (HealthChange change : settings.healthChanges()) {
            if (change.backend() < 0 || change.backend() >= backends.size()) {
                throw new IllegalArgumentException("no backend " + change.backend());
            }
            at(change.atMs(), () -> backends.get(change.backend()).setHealthy(change.healthy()));
        }
        if (workload.closedLoop()) {
            for (List<SimRequest> s : workload.sessions()) {
                if (!s.isEmpty()) {
                    String key = sessionKey(s.get(0));
                    sessionTurns.put(key, s);
                }
            }
            for (int i = 0; i < workload.concurrency(); i++) {
                startNextSession();
            }
        } else if (workload.answeredTurns()) {
            Map<Long, Long> previous = workload.previousTurns();
            for (SimRequest r : workload.requests()) {
                at(r.arrivalMs(), () -> sendOnceAnswered(r, previous.get(r.id())));
            }
        } else {
            for (SimRequest r : workload.requests()) {
                at(r.arrivalMs(), () -> arrive(r));
            }
        }
        if (settings.sampleEveryMs() > 0) {
            at(0, this::sample);
        }
        while (!events.isEmpty()) {
            Event e = events.poll();
            now = e.timeMs;
            e.action.run();
        }
        return result();
    }

    private static String sessionKey(SimRequest first) {
        return first.sessionId() != null ? first.sessionId() : "#" + first.id();
    }

    private void startNextSession() {
        List<List<SimRequest>> sessions = workload.sessions();
        while (nextSession < sessions.size() && sessions.get(nextSession).isEmpty()) {
            nextSession++;
        }
        if (nextSession >= sessions.size()) {
            return;
        }
        List<SimRequest> s = sessions.get(nextSession++);
        sessionCursor.put(sessionKey(s.get(0)), new int[] {0});
        SimRequest first = s.get(0);
        at(now, () -> arrive(first));
    }

    /** Sends the request now, or once {@code previous} (the request it continues) has completed. */
    private void sendOnceAnswered(SimRequest stored, Long previous) {
        if (previous != null && !completedIds.contains(previous)) {
            awaitingAnswer.computeIfAbsent(previous, k -> new ArrayList<>()).add(stored);
        } else {
            arrive(stored);
        }
    }

    private void arrive(SimRequest stored) {
        SimRequest request = workload.materialize(stored, (long) Math.floor(now));
        if (Double.isNaN(firstArrival)) {
            firstArrival = now;
        }
        arrivals.put(request.id(), now);
        sent++;
        int index = router.route(request, cluster);
        if (index < 0 || index >= backends.size()) {
            throw new IllegalStateException(router.name() + " routed request " + request.id() + " to backend " + index);
        }
        countedCachedById.put(request.id(), router.cachedTokensCountedOn(request));
        if (settings.lookaheadRegret()) {
            regretById.put(request.id(), lookaheadRegretMs(request, index));
        }
        if (!backends.get(index).healthy()) {
            routedToUnhealthy++;
        }
        requestsPerBackend[index]++;
        backends.get(index).submit(request);
    }

    /**
     * How much later the lookahead reference expects {@code request}'s first token on backend {@code chosen} than on
     * the backend where it expects it soonest, among those it may choose from ({@link Candidates#of}), as things stand
     * at its arrival; NaN when the chosen one is not among them (unhealthy) or it expects none there.
     */
    private double lookaheadRegretMs(SimRequest request, int chosen) {
        double best = Double.POSITIVE_INFINITY;
        double atChosen = Double.NaN;
        for (BackendView b : Candidates.of(cluster)) {
            double ttft = b.lookaheadTtftMs(request);
            if (b.index() == chosen) {
                atChosen = ttft;
            }
            if (ttft < best) {
                best = ttft;
            }
        }
        return Double.isFinite(atChosen) && Double.isFinite(best) ? Math.max(0, atChosen - best) : Double.NaN;
    }

    private void firstToken(Backend backend, SimRequest request, double t, int cachedTokens) {
        firstTokens.put(request.id(), t);
        cachedById.put(request.id(), cachedTokens);
        router.onFirstToken(request, backend.index(), (long) Math.floor(t));
    }

    private void complete(Backend backend, SimRequest request, double t) {
        double arrival = arrivals.remove(request.id());
        double first = firstTokens.remove(request.id());
        int cached = cachedById.remove(request.id());
        records.add(new RunResult.RequestRecord(
                request.id(),
                request.sessionId(),
                backend.index(),
                arrival,
                first - arrival,
                t - arrival,
                request.inputTokens(),
                cached,
                request.outputTokens(),
                countedCachedById.remove(request.id()),
                settings.lookaheadRegret() ? regretById.remove(request.id()) : Double.NaN));
        completed++;
        outputTokens += request.outputTokens();
        lastCompletion = Math.max(lastCompletion, t);
        router.onComplete(request, backend.index(), (long) Math.floor(t));
        if (progress != null && (completed % 16 == 0 || completed == total)) {
            progress.update(router.name(), completed, total);
        }
        if (workload.closedLoop()) {
            continueSession(request);
        } else if (workload.answeredTurns()) {
            completedIds.add(request.id());
            List<SimRequest> next = awaitingAnswer.remove(request.id());
            if (next != null) {
                for (SimRequest r : next) {
                    at(now, () -> arrive(r));
                }
            }
        }
    }

    private void continueSession(SimRequest done) {
        String key = null;
        List<SimRequest> turns = null;
        if (done.sessionId() != null) {
            key = done.sessionId();
            turns = sessionTurns.get(key);
        }
        if (turns == null) {
            // Sessions without ids: find the one whose turn this was.
            for (Map.Entry<String, List<SimRequest>> e : sessionTurns.entrySet()) {
                int[] cursor = sessionCursor.get(e.getKey());
                if (cursor != null && e.getValue().get(cursor[0]).id() == done.id()) {
                    key = e.getKey();
                    turns = e.getValue();
                    break;
                }
            }
        }
        int[] cursor = key == null ? null : sessionCursor.get(key);
        if (cursor == null) {
            startNextSession();
            return;
        }
        cursor[0]++;
        if (cursor[0] < turns.size()) {
            SimRequest next = turns.get(cursor[0]);
            at(now + workload.thinkMs(), () -> arrive(next));
        } else {
            sessionCursor.remove(key);
            startNextSession();
        }
    }

    private void sample() {
        int n = backends.size();
        int[] running = new int[n];
        int[] waiting = new int[n];
        double[] kv = new double[n];
        long[] prefill = new long[n];
        for (int i = 0; i < n; i++) {
            Backend b = backends.get(i);
            running[i] = b.running();
            waiting[i] = b.waiting();
            kv[i] = b.kvUsage();
            prefill[i] = b.prefillTokens();
        }
        samples.add(new RunResult.LoadSample(now, running, waiting, kv, prefill));
        if (!events.isEmpty()) {
            at(now + settings.sampleEveryMs(), this::sample);
        }
    }

    private RunResult result() {
        if (!awaitingAnswer.isEmpty()) {
            throw new IllegalStateException(awaitingAnswer.size() + " requests never sent: what they continue never"
                    + " completed (" + router.name() + ")");
        }
        int n = backends.size();
        long[] prefill = new long[n];
        long input = 0;
        long cached = 0;
        for (int i = 0; i < n; i++) {
            prefill[i] = backends.get(i).prefillTokens();
            input += backends.get(i).inputTokens();
            cached += backends.get(i).cachedTokens();
        }
        double[] ttft = new double[records.size()];
        double[] e2e = new double[records.size()];
        for (int i = 0; i < records.size(); i++) {
            ttft[i] = records.get(i).ttftMs();
            e2e[i] = records.get(i).e2eMs();
        }
        double duration = Double.isNaN(firstArrival) ? 0 : lastCompletion - firstArrival;
        RunResult.PluginStats plugin = null;
        int gateways = 0;
        if (router instanceof MeasuredRouter measured) {
            plugin = measured.pluginStats();
            gateways = measured.gateways();
        }
        return new RunResult(
                router.name(),
                workload.name(),
                n,
                gateways,
                settings.seed(),
                sent,
                completed,
                input,
                cached,
                outputTokens,
                duration,
                RunResult.Latency.of(ttft),
                RunResult.Latency.of(e2e),
                prefill,
                requestsPerBackend,
                routedToUnhealthy,
                plugin,
                samples,
                records);
    }
}
