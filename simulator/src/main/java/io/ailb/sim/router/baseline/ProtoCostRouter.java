package io.ailb.sim.router.baseline;

import io.ailb.sim.model.BackendView;
import io.ailb.sim.model.ClusterView;
import io.ailb.sim.model.SimRequest;
import io.ailb.sim.router.Router;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/** Prototype of the gateway-signal cost policy (temporary, for tuning). */
public final class ProtoCostRouter implements Router {
    private final String name;
    private final double lambdaScale; // tokens of the shortest queue that add 1 to lambda; 0 = lambda fixed
    private final double lambda0;
    private final double decodeWeight; // tokens per decoding sequence
    private final long ttlMs;
    private final long capacityTokens;
    private final String lambdaBasis;
    private final SplittableRandom random;
    private final ApproxPrefixIndex index;
    private final Map<Integer, double[]> load = new HashMap<>(); // [pending prefill, decoding]
    private final Map<Long, double[]> active = new HashMap<>(); // id -> [backend, prefill, prefillDone]

    public ProtoCostRouter(String spec, long seed) {
        Map<String, String> p = new HashMap<>();
        int colon = spec.indexOf(':');
        if (colon > 0) {
            for (String kv : spec.substring(colon + 1).split("/")) {
                String[] a = kv.split("=");
                p.put(a[0], a[1]);
            }
        }
        name = spec;
        lambda0 = Double.parseDouble(p.getOrDefault("l0", "1"));
        lambdaScale = Double.parseDouble(p.getOrDefault("ls", "0"));
        decodeWeight = Double.parseDouble(p.getOrDefault("wd", "0"));
        ttlMs = Long.parseLong(p.getOrDefault("ttl", "600000"));
        capacityTokens = Long.parseLong(p.getOrDefault("cap", "0"));
        lambdaBasis = p.getOrDefault("lb", "min");
        random = new SplittableRandom(seed);
        index = new ApproxPrefixIndex(capacityTokens > 0 ? capacityTokens : Long.MAX_VALUE, capacityTokens > 0, ttlMs);
    }

    @Override
    public String name() {
        return name;
    }

    private double[] load(int b) {
        return load.computeIfAbsent(b, k -> new double[2]);
    }

    @Override
    public int route(SimRequest request, ClusterView cluster) {
        List<BackendView> candidates = Candidates.of(cluster);
        long now = cluster.nowMs();
        double minPending = Double.POSITIVE_INFINITY;
        double sum = 0;
        double max = 0;
        for (BackendView b : candidates) {
            minPending = Math.min(minPending, load(b.index())[0]);
            sum += load(b.index())[0];
            max = Math.max(max, load(b.index())[0]);
        }
        if (lambdaBasis.equals("mean")) {
            minPending = sum / candidates.size();
        } else if (lambdaBasis.equals("max")) {
            minPending = max;
        }
        double lambda = lambda0 + (lambdaScale > 0 ? minPending / lambdaScale : 0);
        double best = Double.POSITIVE_INFINITY;
        List<BackendView> ties = new ArrayList<>();
        double bestUncached = 0;
        for (BackendView b : candidates) {
            int cached = index.match(b.index(), request, now);
            double uncached = Math.max(1, request.inputTokens() - (long) cached * request.blockTokens());
            double[] l = load(b.index());
            double cost = l[0] + lambda * uncached + decodeWeight * l[1];
            if (cost < best - 1e-9) {
                best = cost;
                ties.clear();
                ties.add(b);
                bestUncached = uncached;
            } else if (Math.abs(cost - best) <= 1e-9) {
                ties.add(b);
            }
        }
        BackendView chosen = Candidates.pick(ties, random);
        int cached = index.match(chosen.index(), request, now);
        double uncached = Math.max(1, request.inputTokens() - (long) cached * request.blockTokens());
        index.record(chosen.index(), request, now);
        load(chosen.index())[0] += uncached;
        load(chosen.index())[1] += 1;
        active.put(request.id(), new double[] {chosen.index(), uncached, 0});
        return chosen.index();
    }

    @Override
    public void onFirstToken(SimRequest request, int backend, long nowMs) {
        double[] a = active.get(request.id());
        if (a != null && a[2] == 0) {
            a[2] = 1;
            double[] l = load((int) a[0]);
            l[0] = Math.max(0, l[0] - a[1]);
        }
    }

    @Override
    public void onComplete(SimRequest request, int backend, long nowMs) {
        double[] a = active.remove(request.id());
        if (a != null) {
            double[] l = load((int) a[0]);
            if (a[2] == 0) {
                l[0] = Math.max(0, l[0] - a[1]);
            }
            l[1] = Math.max(0, l[1] - 1);
        }
    }
}
