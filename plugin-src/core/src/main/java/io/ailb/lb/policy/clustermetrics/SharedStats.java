package io.ailb.lb.policy.clustermetrics;

import io.ailb.codec.util.Utf8;
import io.ailb.lb.policy.SharedState;
import io.ailb.lb.util.Words;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Pools cluster_metrics' measurements across the VMs of one gateway (one per Envoy worker) through shared data: one
 * key per configuration holding a line per VM — its id, when it wrote, and per service (in service_list order) its
 * in-flight count, latency EWMAs and means, recent outcomes, error rate and cooldown end. At each tick a VM replaces
 * its own line (compare-and-swap, a few attempts) and reads the others'; lines older than {@link #STALE_MILLIS} (a VM
 * that stopped) are dropped. A VM writes only what it measured itself, so nothing is counted twice.
 */
final class SharedStats {
    static final long STALE_MILLIS = 5_000;
    /** A bound on the key's size whatever happens to the workers. */
    static final int MAX_VMS = 128;

    private static final int FIELDS_PER_SERVICE = 8;
    private static final int CAS_ATTEMPTS = 3;

    private final String key;
    private final List<String> services;
    private final Map<String, ServiceStats> stats;

    SharedStats(String key, List<String> services, Map<String, ServiceStats> stats) {
        this.key = key;
        this.services = services;
        this.stats = stats;
    }

    String key() {
        return key;
    }

    /** Publishes this VM's line and loads the peers' into each service's {@code peer*} values. */
    void exchange(SharedState state, long nowMillis, long halfLifeMillis) {
        String self = state.vmId();
        String ownLine = line(self, nowMillis, halfLifeMillis);
        List<long[]> peers = new ArrayList<>();
        for (int attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
            SharedState.Value current = state.get(key);
            peers.clear();
            StringBuilder text = new StringBuilder(ownLine);
            if (current != null) {
                for (String line : Words.split(Utf8.decode(current.bytes()), '\n')) {
                    long[] peer = freshPeer(Words.split(line, ' '), self, nowMillis);
                    if (peer != null && peers.size() < MAX_VMS - 1) {
                        peers.add(peer);
                        text.append('\n').append(line);
                    }
                }
            }
            if (state.set(key, Utf8.encode(text.toString()), current == null ? 0 : current.cas())) {
                break;
            }
        }
        load(peers);
    }

    /** Another VM's line written in the last {@link #STALE_MILLIS}, as its numbers; null for anything else. */
    private long[] freshPeer(List<String> words, String self, long nowMillis) {
        if (words.size() != 2 + FIELDS_PER_SERVICE * services.size()
                || words.get(0).equals(self)) {
            return null;
        }
        long[] numbers = new long[words.size() - 1];
        try {
            for (int i = 1; i < words.size(); i++) {
                numbers[i - 1] = Long.parseLong(words.get(i));
            }
        } catch (NumberFormatException e) {
            return null;
        }
        return nowMillis - numbers[0] <= STALE_MILLIS ? numbers : null;
    }

    private String line(String self, long nowMillis, long halfLifeMillis) {
        StringBuilder out = new StringBuilder().append(self).append(' ').append(nowMillis);
        for (String service : services) {
            ServiceStats s = stats.get(service);
            out.append(' ').append(s.inflight);
            out.append(' ').append(s.hasFirstToken() ? Math.round(s.ewmaFirstTokenMillis) : -1);
            out.append(' ').append(s.hasTotal() ? Math.round(s.ewmaTotalMillis) : -1);
            out.append(' ').append(s.hasFirstToken() ? Math.round(s.meanFirstTokenMillis()) : -1);
            out.append(' ').append(s.hasTotal() ? Math.round(s.meanTotalMillis()) : -1);
            // Outcomes and error rate in thousandths: integers keep the line short and the parse cheap.
            out.append(' ').append(Math.round(1000 * (s.successes + s.failures)));
            out.append(' ').append(Math.round(1000 * s.errorRate(nowMillis, halfLifeMillis)));
            out.append(' ').append(s.cooldownUntilMillis);
        }
        return out.toString();
    }

    /** Sums the peers' in-flight counts, weighs their latencies and error rates by their outcomes. */
    private void load(List<long[]> peers) {
        for (int i = 0; i < services.size(); i++) {
            ServiceStats s = stats.get(services.get(i));
            s.clearPeers();
            double[] latencySums = new double[4];
            double[] latencyWeights = new double[4];
            double errorSum = 0;
            for (long[] numbers : peers) {
                long[] v = new long[FIELDS_PER_SERVICE];
                System.arraycopy(numbers, 1 + i * FIELDS_PER_SERVICE, v, 0, FIELDS_PER_SERVICE);
                double outcomes = Math.max(v[5], 1) / 1000.0;
                s.peerInflight += (int) Math.max(0, Math.min(v[0], Integer.MAX_VALUE / 2));
                for (int l = 0; l < 4; l++) {
                    if (v[1 + l] >= 0) {
                        latencySums[l] += v[1 + l] * outcomes;
                        latencyWeights[l] += outcomes;
                    }
                }
                s.peerOutcomes += v[5] / 1000.0;
                errorSum += v[6] / 1000.0 * (v[5] / 1000.0);
                s.peerCooldownUntilMillis = Math.max(s.peerCooldownUntilMillis, v[7]);
            }
            s.peerFirstTokenEwma = latencyWeights[0] > 0 ? latencySums[0] / latencyWeights[0] : ServiceStats.NONE;
            s.peerTotalEwma = latencyWeights[1] > 0 ? latencySums[1] / latencyWeights[1] : ServiceStats.NONE;
            s.peerMeanFirstToken = latencyWeights[2] > 0 ? latencySums[2] / latencyWeights[2] : ServiceStats.NONE;
            s.peerMeanTotal = latencyWeights[3] > 0 ? latencySums[3] / latencyWeights[3] : ServiceStats.NONE;
            s.peerErrorRate = s.peerOutcomes > 0 ? errorSum / s.peerOutcomes : 0;
        }
    }
}
