package io.ailb.sim.cluster;

import io.ailb.sim.model.BackendView;
import io.ailb.sim.model.ClusterView;

/**
 * Envoy's default load balancer inside one cluster: round robin over the service's healthy backends (all of them when
 * none is healthy), one cursor per service.
 */
public final class InServiceBalancer {
    private final ServiceLayout layout;
    private final int[] cursors;

    public InServiceBalancer(ServiceLayout layout) {
        this.layout = layout;
        this.cursors = new int[layout.size()];
    }

    /** The backend of {@code service} the next request goes to. */
    public int pick(int service, ClusterView cluster) {
        ServiceLayout.Service s = layout.service(service);
        for (int tried = 0; tried < s.backends(); tried++) {
            int backend = s.firstBackend() + cursors[service];
            cursors[service] = (cursors[service] + 1) % s.backends();
            BackendView view = cluster.backends().get(backend);
            if (view.healthy()) {
                return backend;
            }
        }
        int backend = s.firstBackend() + cursors[service];
        cursors[service] = (cursors[service] + 1) % s.backends();
        return backend;
    }
}
