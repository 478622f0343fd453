package io.ailb.sim.cluster;

import io.ailb.sim.backend.BackendConfig;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

/**
 * Services of one model, each a pool of consecutive backends running at {@code speed} times the base backend (0.5 =
 * every prefill token and every step takes twice as long). The engine sees one flat list of backends; this says which
 * service each belongs to.
 */
public record ServiceLayout(List<Service> services) {
    /** One service: its Envoy cluster name, its backends {@code [firstBackend, firstBackend + backends)}, its speed. */
    public record Service(String name, String cluster, int firstBackend, int backends, double speed) {
        /** Backend-equivalents of the base speed. */
        public double capacity() {
            return backends * speed;
        }
    }

    public ServiceLayout {
        services = List.copyOf(services);
        if (services.isEmpty()) {
            throw new IllegalArgumentException("at least one service");
        }
    }

    /** Services {@code svc-a, svc-b, …} with these backend counts and speeds (same length). */
    public static ServiceLayout of(List<Integer> backends, List<Double> speeds) {
        if (backends.size() != speeds.size()) {
            throw new IllegalArgumentException(
                    backends.size() + " backend counts for " + speeds.size() + " service speeds");
        }
        if (backends.size() > 26) {
            throw new IllegalArgumentException("at most 26 services, got " + backends.size());
        }
        List<Service> services = new ArrayList<>();
        int first = 0;
        for (int i = 0; i < backends.size(); i++) {
            int count = backends.get(i);
            double speed = speeds.get(i);
            if (count < 1) {
                throw new IllegalArgumentException("service " + i + " needs at least one backend, got " + count);
            }
            if (!(speed > 0) || speed > 100) {
                throw new IllegalArgumentException("service speed must be in (0, 100], got " + speed);
            }
            String name = "svc-" + (char) ('a' + i);
            services.add(new Service(name, "outbound|80||" + name + ".dns", first, count, speed));
            first += count;
        }
        return new ServiceLayout(services);
    }

    public int size() {
        return services.size();
    }

    public Service service(int index) {
        return services.get(index);
    }

    public int totalBackends() {
        Service last = services.get(services.size() - 1);
        return last.firstBackend() + last.backends();
    }

    /** The service backend {@code backend} belongs to. */
    public int serviceOf(int backend) {
        for (int i = 0; i < services.size(); i++) {
            Service s = services.get(i);
            if (backend >= s.firstBackend() && backend < s.firstBackend() + s.backends()) {
                return i;
            }
        }
        throw new IllegalArgumentException("no service holds backend " + backend);
    }

    /** The service whose cluster is {@code cluster}, or -1. */
    public int indexOfCluster(String cluster) {
        for (int i = 0; i < services.size(); i++) {
            if (services.get(i).cluster().equals(cluster)) {
                return i;
            }
        }
        return -1;
    }

    public List<String> clusters() {
        return services.stream().map(Service::cluster).toList();
    }

    /** {@code base} slowed down per service: prefill per token, step time and per-request overhead ÷ speed. */
    public List<BackendConfig> backendConfigs(BackendConfig base) {
        List<BackendConfig> configs = new ArrayList<>();
        for (Service s : services) {
            BackendConfig scaled = base.withPrefillUsPerToken(base.prefillUsPerToken() / s.speed())
                    .withItlMs(base.itlMs() / s.speed())
                    .withOverheadMs(base.overheadMs() / s.speed());
            for (int i = 0; i < s.backends(); i++) {
                configs.add(scaled);
            }
        }
        return configs;
    }

    /**
     * Each service's share of the total capacity as whole percents summing to exactly 100 (largest remainders),
     * at least 1 each: the weights of a capacity-proportional static split (cluster_hash's {@code weight}).
     */
    public List<Integer> capacityPercents() {
        double total = services.stream().mapToDouble(Service::capacity).sum();
        int n = services.size();
        double[] exact = new double[n];
        int[] percents = new int[n];
        int sum = 0;
        for (int i = 0; i < n; i++) {
            exact[i] = 100 * services.get(i).capacity() / total;
            percents[i] = Math.max(1, (int) Math.floor(exact[i]));
            sum += percents[i];
        }
        for (; sum < 100; sum++) {
            percents[mostOff(exact, percents, 1, 0)]++;
        }
        for (; sum > 100; sum--) {
            percents[mostOff(exact, percents, -1, 1)]--;
        }
        List<Integer> out = new ArrayList<>();
        for (int p : percents) {
            out.add(p);
        }
        return out;
    }

    /** The index with the largest {@code sign × (exact − percent)} among percents above {@code floor}. */
    private static int mostOff(double[] exact, int[] percents, int sign, int floor) {
        int pick = -1;
        for (int i = 0; i < exact.length; i++) {
            if (percents[i] > floor
                    && (pick < 0 || sign * (exact[i] - percents[i]) > sign * (exact[pick] - percents[pick]))) {
                pick = i;
            }
        }
        return pick;
    }

    /** E.g. {@code svc-a 3 × 1.0, svc-b 3 × 0.6}. */
    public String describe() {
        List<String> parts = new ArrayList<>();
        for (Service s : services) {
            parts.add(s.name() + " " + s.backends() + " × "
                    + BigDecimal.valueOf(s.speed()).stripTrailingZeros().toPlainString());
        }
        return String.join(", ", parts);
    }
}
