package io.ailb.lb.shell;

import io.ailb.lb.flow.RequestFlow;
import io.ailb.lb.flow.RoutePolicy;
import io.ailb.lb.flow.RouteTable;
import io.ailb.lb.model.Endpoint;
import io.ailb.lb.policy.RequestContext;
import io.ailb.lb.request.RequestInfo;
import io.ailb.lb.request.RequestParser;
import io.ailb.lb.util.Decimal;
import io.ailb.proxywasm.Buffer;
import io.ailb.proxywasm.Clock;
import io.ailb.proxywasm.DataStatus;
import io.ailb.proxywasm.HeaderStatus;
import io.ailb.proxywasm.Headers;
import io.ailb.proxywasm.HttpContext;
import io.ailb.proxywasm.Log;
import io.ailb.proxywasm.Properties;
import io.ailb.proxywasm.ProxyWasmException;
import io.ailb.proxywasm.UpstreamHost;
import io.ailb.proxywasm.Upstreams;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * One request. Headers are held only when a body will follow and the policy reads it; a request whose headers end
 * the stream is decided at once, so it can never wait for a body that will not come.
 */
final class LoadBalancerStream extends HttpContext {
    /** Higress's property for this stream's request buffer limit, in decimal bytes. */
    static final String DECODER_BUFFER_LIMIT = "set_decoder_buffer_limit";

    /** The endpoints built from the host list {@link #endpointsOf}; both replaced when the host list changes. */
    private static List<UpstreamHost> endpointsOf;

    private static List<Endpoint> endpoints = Collections.emptyList();

    private final LoadBalancerRoot root;
    private RoutePolicy route;
    private String routeName;
    private String clusterName;
    private String authority;
    private String contentType;
    private String contentEncoding;
    /** When the headers reached the plugin: the start of the decision time. */
    private long arrivedAtMillis;

    private RequestFlow flow;

    LoadBalancerStream(int contextId, LoadBalancerRoot root) {
        super(contextId);
        this.root = root;
    }

    @Override
    public HeaderStatus onRequestHeaders(int headerCount, boolean endOfStream) {
        RouteTable table = root.table();
        if (table == null) {
            return HeaderStatus.CONTINUE;
        }
        routeName = Properties.getString("route_name").orElse(null);
        clusterName = Properties.getString("cluster_name").orElse(null);
        Headers headers = Headers.request();
        authority = headers.get(":authority").orElse(null);
        route = table.match(routeName, authority, clusterName);
        if (route == null) {
            return HeaderStatus.CONTINUE;
        }
        arrivedAtMillis = Clock.nowMillis();
        contentType = headers.get("content-type").orElse(null);
        contentEncoding = headers.get("content-encoding").orElse(null);
        if (endOfStream) {
            return decide(RequestInfo.noBody()) ? HeaderStatus.CONTINUE : HeaderStatus.STOP_ITERATION;
        }
        if (!route.readsBody() || !RequestParser.inspectable(contentType, contentEncoding)) {
            // The body is not needed or cannot be read: decide now, let the body stream through untouched.
            return decide(RequestInfo.unparsed(0)) ? HeaderStatus.CONTINUE : HeaderStatus.STOP_ITERATION;
        }
        long declaredLength = Decimal.nonNegative(headers.get("content-length").orElse(null), 18);
        if (declaredLength > route.maxBodyBytes()) {
            // Too big to buffer: decided without the prompt, the body streams through.
            return decide(RequestInfo.unparsed((int) Math.min(declaredLength, Integer.MAX_VALUE)))
                    ? HeaderStatus.CONTINUE
                    : HeaderStatus.STOP_ITERATION;
        }
        raiseBufferLimit(route.maxBodyBytes());
        return HeaderStatus.STOP_ITERATION;
    }

    /**
     * Envoy answers 413 when a filter buffers more request body than the stream's limit (1 MiB in stock Envoy, set per
     * listener); Higress lets a filter set its stream's limit. Refused on a host without the property: then the
     * listener's limit stands, and the README says which one to set.
     */
    private static void raiseBufferLimit(int bytes) {
        try {
            Properties.set(List.of(DECODER_BUFFER_LIMIT), Integer.toString(bytes));
        } catch (ProxyWasmException e) {
            Log.debug("ai-load-balancer: request buffer limit not raised: " + e.getMessage());
        }
    }

    @Override
    public DataStatus onRequestBody(int bodySize, boolean endOfStream) {
        if (route == null) {
            return DataStatus.CONTINUE;
        }
        if (flow != null) {
            // Decided already; while Redis has not answered, the body waits, the client paused rather than refused.
            return flow.waitingForRedis() ? DataStatus.STOP_ITERATION_AND_WATERMARK : DataStatus.CONTINUE;
        }
        if (bodySize > route.maxBodyBytes()) {
            // Past the cap: decided without the prompt, nothing more buffered (guest memory stays bounded too).
            return decide(RequestInfo.unparsed(bodySize))
                    ? DataStatus.CONTINUE
                    : DataStatus.STOP_ITERATION_AND_WATERMARK;
        }
        if (!endOfStream) {
            return DataStatus.STOP_ITERATION_AND_BUFFER;
        }
        byte[] body = Buffer.requestBody().get(0, bodySize);
        RequestInfo info = RequestParser.parse(
                contentType,
                contentEncoding,
                body,
                body.length,
                route.readsPrompt(),
                route.blockBoundaries(),
                route.maxJsonDepth());
        return decide(info) ? DataStatus.CONTINUE : DataStatus.STOP_ITERATION_AND_BUFFER;
    }

    /** The status and the cluster that served: statistics for lb_type cluster, and the "header ignored" check. */
    @Override
    public HeaderStatus onResponseHeaders(int headerCount, boolean endOfStream) {
        // Only a cluster decision or a response observer uses it: the others skip reading :status on every response.
        if (flow != null && flow.wantsResponseHeaders()) {
            flow.onResponseHeaders(
                    statusOf(Headers.response().get(":status").orElse(null)),
                    route.choosesCluster()
                            ? Properties.getString("cluster_name").orElse(null)
                            : null);
        }
        return HeaderStatus.CONTINUE;
    }

    /** The {@code :status} value; 0 when absent or not a 3-digit number. */
    static int statusOf(String value) {
        if (value == null || value.length() != 3) {
            return 0;
        }
        int status = 0;
        for (int i = 0; i < 3; i++) {
            char c = value.charAt(i);
            if (c < '0' || c > '9') {
                return 0;
            }
            status = status * 10 + (c - '0');
        }
        return status;
    }

    /** The first response bytes mean the backend produced its first token: the policy may want to know. */
    @Override
    public DataStatus onResponseBody(int bodySize, boolean endOfStream) {
        if (flow != null && bodySize > 0) {
            flow.onFirstResponseBody();
        }
        return DataStatus.CONTINUE;
    }

    @Override
    public void onLog() {
        endFlow();
    }

    @Override
    public void onDelete() {
        endFlow();
    }

    private void endFlow() {
        if (flow != null) {
            flow.onStreamEnd();
        }
    }

    /** True when decided now; false when the request waits for Redis. */
    private boolean decide(RequestInfo info) {
        flow = new RequestFlow(route, new StreamHost(root), arrivedAtMillis);
        try {
            RequestContext ctx = RequestContext.builder()
                    .routeName(routeName)
                    .clusterName(clusterName)
                    .authority(authority)
                    .request(info)
                    .endpoints(route.choosesCluster() ? Collections.emptyList() : endpoints())
                    .requestHeaders(LoadBalancerStream::requestHeader)
                    .nowMillis(Clock.nowMillis())
                    .random(root.random())
                    .build();
            return flow.start(ctx);
        } catch (RuntimeException e) {
            // Fail open: the cluster's own load balancer decides.
            Log.error("ai-load-balancer: decision failed, using the cluster's load balancer: " + e);
            return !flow.waitingForRedis();
        }
    }

    private static String requestHeader(String name) {
        return Headers.request().get(name).orElse(null);
    }

    /** Rebuilt only when the host list changes (Upstreams returns the same instance until then). */
    private static List<Endpoint> endpoints() {
        List<UpstreamHost> hosts = Upstreams.hosts();
        if (hosts != endpointsOf) {
            List<Endpoint> built = new ArrayList<>(hosts.size());
            for (UpstreamHost host : hosts) {
                built.add(Endpoint.fromHostInfo(host.address(), host.info()));
            }
            endpoints = Collections.unmodifiableList(built);
            endpointsOf = hosts;
        }
        return endpoints;
    }
}
