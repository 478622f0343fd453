package io.ailb.sim.cluster;

import io.ailb.sim.model.BackendView;
import io.ailb.sim.model.ClusterView;
import io.ailb.sim.model.SimRequest;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Service choices to compare the plugin's cluster policies with: {@code random}, {@code round_robin},
 * {@code weighted} (a static split by capacity, backends × speed: what an operator who knows the speeds would
 * configure) and {@code least_outstanding} (the service with the fewest requests in flight at its backends, seen
 * gateway-wide: what LeastBusy approximates per VM).
 */
public final class ServiceBaselines {
    public static final List<String> NAMES = List.of("random", "round_robin", "weighted", "least_outstanding");

    private ServiceBaselines() {}

    public static ServiceRouter create(String name, ServiceLayout layout, long seed) {
        return switch (name) {
            case "random" -> new RandomService(layout, seed);
            case "round_robin" -> new RoundRobinService(layout);
            case "weighted" -> new WeightedService(layout);
            case "least_outstanding" -> new LeastOutstandingService(layout);
            default -> throw new IllegalArgumentException("unknown service router " + name + " (known: plugin:MODE,"
                    + " plugin:AdaptiveScore+global, plugin:cluster_hash, plugin:{json}, plugin:@FILE, "
                    + String.join(", ", NAMES) + ")");
        };
    }

    private static final class RandomService extends ServiceRouter {
        private final SplittableRandom random;

        RandomService(ServiceLayout layout, long seed) {
            super("random", layout);
            this.random = new SplittableRandom(seed);
        }

        @Override
        protected int chooseService(SimRequest request, ClusterView cluster) {
            return random.nextInt(layout.size());
        }
    }

    private static final class RoundRobinService extends ServiceRouter {
        private int next;

        RoundRobinService(ServiceLayout layout) {
            super("round_robin", layout);
        }

        @Override
        protected int chooseService(SimRequest request, ClusterView cluster) {
            int service = next;
            next = (next + 1) % layout.size();
            return service;
        }
    }

    /** Smooth weighted round robin (as nginx does it): deterministic, and no burst to one service. */
    private static final class WeightedService extends ServiceRouter {
        private final double[] current;

        WeightedService(ServiceLayout layout) {
            super("weighted", layout);
            this.current = new double[layout.size()];
        }

        @Override
        protected int chooseService(SimRequest request, ClusterView cluster) {
            double total = 0;
            int best = 0;
            for (int i = 0; i < current.length; i++) {
                double weight = layout.service(i).capacity();
                current[i] += weight;
                total += weight;
                if (current[i] > current[best]) {
                    best = i;
                }
            }
            current[best] -= total;
            return best;
        }
    }

    private static final class LeastOutstandingService extends ServiceRouter {
        LeastOutstandingService(ServiceLayout layout) {
            super("least_outstanding", layout);
        }

        @Override
        protected int chooseService(SimRequest request, ClusterView cluster) {
            int best = 0;
            long bestCount = Long.MAX_VALUE;
            for (int i = 0; i < layout.size(); i++) {
                ServiceLayout.Service s = layout.service(i);
                long count = 0;
                for (int b = s.firstBackend(); b < s.firstBackend() + s.backends(); b++) {
                    BackendView view = cluster.backends().get(b);
                    count += view.inFlight();
                }
                if (count < bestCount) {
                    best = i;
                    bestCount = count;
                }
            }
            return best;
        }
    }
}
