package io.ailb.lb.policy;

import io.ailb.lb.model.Endpoint;
import io.ailb.lb.request.RequestInfo;
import io.ailb.lb.util.Rng;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/** The facts of one request, built by the shell (or a test) and handed to {@link LoadBalancingPolicy#select}. */
public final class RequestContext {
    private final String routeName;
    private final String clusterName;
    private final String authority;
    private final RequestInfo request;
    private final List<Endpoint> endpoints;
    private final List<Endpoint> healthy;
    private final long nowMillis;
    private final Rng random;
    private final Function<String, String> requestHeaders;

    private RequestContext(Builder builder) {
        this.routeName = builder.routeName;
        this.clusterName = builder.clusterName;
        this.authority = builder.authority;
        this.request = builder.request;
        this.endpoints = Collections.unmodifiableList(new ArrayList<>(builder.endpoints));
        List<Endpoint> up = new ArrayList<>(endpoints.size());
        for (Endpoint endpoint : endpoints) {
            if (endpoint.healthy()) {
                up.add(endpoint);
            }
        }
        this.healthy = Collections.unmodifiableList(up);
        this.nowMillis = builder.nowMillis;
        this.random = Objects.requireNonNull(builder.random, "random");
        this.requestHeaders = builder.requestHeaders;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The Envoy route name ({@code route_name} property); null when unknown. */
    public String routeName() {
        return routeName;
    }

    /** The upstream cluster ({@code cluster_name} property); null when unknown. */
    public String clusterName() {
        return clusterName;
    }

    /** The request's {@code :authority}; null when absent. */
    public String authority() {
        return authority;
    }

    /** The parsed request; null when the body was not read (policies that do not read bodies). */
    public RequestInfo request() {
        return request;
    }

    /** Every host of the cluster, healthy or not, in the host's order. */
    public List<Endpoint> endpoints() {
        return endpoints;
    }

    /** The healthy hosts, in the host's order. */
    public List<Endpoint> healthy() {
        return healthy;
    }

    public long nowMillis() {
        return nowMillis;
    }

    /** The VM's random generator (seeded by the shell). */
    public Rng random() {
        return random;
    }

    /** A request header's value (lower-case {@code name}); null when absent. Read when a policy asks, not before. */
    public String requestHeader(String name) {
        return requestHeaders.apply(name);
    }

    public static final class Builder {
        private String routeName;
        private String clusterName;
        private String authority;
        private RequestInfo request;
        private List<Endpoint> endpoints = Collections.emptyList();
        private long nowMillis;
        private Rng random;
        private Function<String, String> requestHeaders = name -> null;

        private Builder() {}

        public Builder routeName(String value) {
            routeName = value;
            return this;
        }

        public Builder clusterName(String value) {
            clusterName = value;
            return this;
        }

        public Builder authority(String value) {
            authority = value;
            return this;
        }

        public Builder request(RequestInfo value) {
            request = value;
            return this;
        }

        public Builder endpoints(List<Endpoint> value) {
            endpoints = Objects.requireNonNull(value, "endpoints");
            return this;
        }

        public Builder nowMillis(long value) {
            nowMillis = value;
            return this;
        }

        public Builder random(Rng value) {
            random = value;
            return this;
        }

        /** How {@link RequestContext#requestHeader} reads a header: name → value, null when absent. */
        public Builder requestHeaders(Function<String, String> value) {
            requestHeaders = Objects.requireNonNull(value, "requestHeaders");
            return this;
        }

        public RequestContext build() {
            return new RequestContext(this);
        }
    }
}
