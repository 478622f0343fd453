package io.ailb.sim.cluster;

import io.ailb.sim.model.ClusterView;
import io.ailb.sim.model.SimRequest;
import io.ailb.sim.router.Router;

/** A router that chooses a service; the service's own balancer ({@link InServiceBalancer}) picks the backend. */
public abstract class ServiceRouter implements Router {
    protected final ServiceLayout layout;
    private final String name;
    private final InServiceBalancer balancer;

    protected ServiceRouter(String name, ServiceLayout layout) {
        this.name = name;
        this.layout = layout;
        this.balancer = new InServiceBalancer(layout);
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final int route(SimRequest request, ClusterView cluster) {
        return balancer.pick(chooseService(request, cluster), cluster);
    }

    /** The index of the service {@code request} goes to, in {@link ServiceLayout} order. */
    protected abstract int chooseService(SimRequest request, ClusterView cluster);
}
