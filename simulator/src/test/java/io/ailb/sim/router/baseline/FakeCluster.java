package io.ailb.sim.router.baseline;

import io.ailb.sim.model.BackendView;
import io.ailb.sim.model.ClusterView;
import io.ailb.sim.model.SimRequest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** A hand-made cluster whose backends report whatever a test sets. */
final class FakeCluster implements ClusterView {
    static final class Backend implements BackendView {
        final int index;
        boolean healthy = true;
        int inFlight;
        int waiting;
        int running;
        double kvUsage;
        long activeBlocks;
        String metricsText = "";
        final Map<Long, Integer> cachedByRequest = new HashMap<>();
        final Map<Long, Double> ttftByRequest = new HashMap<>();
        final Map<Long, Double> lookaheadByRequest = new HashMap<>();
        long cachedBlocks;

        Backend(int index) {
            this.index = index;
        }

        @Override
        public int index() {
            return index;
        }

        @Override
        public String address() {
            return "10.0.0." + (index + 1) + ":8000";
        }

        @Override
        public boolean healthy() {
            return healthy;
        }

        @Override
        public int inFlight() {
            return inFlight;
        }

        @Override
        public int waiting() {
            return waiting;
        }

        @Override
        public int running() {
            return running;
        }

        @Override
        public double kvUsage() {
            return kvUsage;
        }

        @Override
        public long activeBlocks() {
            return activeBlocks;
        }

        @Override
        public String metricsText() {
            return metricsText;
        }

        @Override
        public int cachedPrefixBlocks(SimRequest request) {
            return cachedByRequest.getOrDefault(request.id(), 0);
        }

        @Override
        public long cachedBlocks() {
            return cachedBlocks;
        }

        @Override
        public double estimatedTtftMs(SimRequest request) {
            return ttftByRequest.getOrDefault(request.id(), 100.0);
        }

        @Override
        public double lookaheadTtftMs(SimRequest request) {
            return lookaheadByRequest.getOrDefault(request.id(), estimatedTtftMs(request));
        }
    }

    final List<Backend> backends = new ArrayList<>();
    long now;

    FakeCluster(int n) {
        for (int i = 0; i < n; i++) {
            backends.add(new Backend(i));
        }
    }

    Backend b(int i) {
        return backends.get(i);
    }

    /** Only the listed backends are healthy. */
    FakeCluster onlyHealthy(int... indexes) {
        for (Backend b : backends) {
            b.healthy = false;
        }
        for (int i : indexes) {
            backends.get(i).healthy = true;
        }
        return this;
    }

    FakeCluster allHealthy() {
        for (Backend b : backends) {
            b.healthy = true;
        }
        return this;
    }

    @Override
    public List<BackendView> backends() {
        return List.copyOf(backends);
    }

    @Override
    public long nowMs() {
        return now;
    }

    private static long nextId = 1;

    /** A request of {@code blocks.length} full blocks of {@code blockTokens}. */
    static SimRequest request(int blockTokens, long... blocks) {
        List<Long> ids = new ArrayList<>();
        for (long b : blocks) {
            ids.add(b);
        }
        return new SimRequest(nextId++, 0, null, blocks.length * blockTokens, 10, blockTokens, ids, "{}");
    }

    /** Blocks {@code from, from+1, …, from+count−1}. */
    static long[] range(long from, int count) {
        long[] r = new long[count];
        for (int i = 0; i < count; i++) {
            r[i] = from + i;
        }
        return r;
    }

    /** {@code prefix} followed by {@code suffix}. */
    static long[] concat(long[] prefix, long... suffix) {
        long[] r = java.util.Arrays.copyOf(prefix, prefix.length + suffix.length);
        System.arraycopy(suffix, 0, r, prefix.length, suffix.length);
        return r;
    }
}
