package io.ailb.sim.bench;

import io.ailb.codec.resp.RespDecoder;
import io.ailb.codec.resp.RespValue;
import io.ailb.emulator.ClusterHost;
import io.ailb.emulator.RedisEndpoint;
import io.ailb.lb.config.ConfigException;
import io.ailb.lb.flow.FlowHost;
import io.ailb.lb.flow.RedisReplyHandler;
import io.ailb.lb.flow.RequestFlow;
import io.ailb.lb.flow.RoutePolicy;
import io.ailb.lb.flow.RouteTable;
import io.ailb.lb.model.Endpoint;
import io.ailb.lb.policy.RequestContext;
import io.ailb.lb.redis.RedisTarget;
import io.ailb.lb.request.RequestInfo;
import io.ailb.lb.request.RequestParser;
import io.ailb.lb.util.Rng;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The plugin's core run directly on the JVM, doing per request what the Wasm shell does
 * ({@code LoadBalancerStream}): endpoints from the host-info JSON (once: the shell rebuilds them only when the host
 * list changes), route match, {@link RequestParser#parse} when the
 * policy reads the body, {@link RequestFlow#start}, the Redis replies, {@link RequestFlow#onStreamEnd} and the release.
 * The {@link FlowHost} answers Redis from the real Redis: each command makes a synchronous round trip on one
 * connection (as the emulator does) and its reply is handed to the flow after the current step returns.
 */
final class JvmCoreDriver implements AutoCloseable {
    private final RouteTable table;
    private final RedisFlowHost host;
    /** Built once, as the shell keeps its endpoints while the host list does not change. */
    private final List<Endpoint> endpoints;

    private final Rng random = new Rng(42);

    JvmCoreDriver(PolicyCase policy, RedisEndpoint redis) throws ConfigException {
        this.table = RouteTable.parse(policy.configJson.getBytes(StandardCharsets.UTF_8));
        this.host = new RedisFlowHost(redis);
        List<Endpoint> built = new ArrayList<>();
        for (ClusterHost upstream : PolicyCase.HOSTS) {
            built.add(Endpoint.fromHostInfo(upstream.address(), upstream.infoJson()));
        }
        this.endpoints = List.copyOf(built);
    }

    /** One request start to end; returns the host it was routed to (null = the cluster decided). */
    String request(byte[] body) {
        host.reset();
        RoutePolicy route = table.match(PolicyCase.ROUTE, PolicyCase.AUTHORITY, PolicyCase.CLUSTER);
        RequestInfo info = route.readsBody() && RequestParser.inspectable(PolicyCase.CONTENT_TYPE, null)
                ? RequestParser.parse(
                        PolicyCase.CONTENT_TYPE, null, body, body.length, route.readsPrompt(), route.blockBoundaries())
                : RequestInfo.unparsed(0);
        RequestFlow flow = new RequestFlow(route, host);
        RequestContext ctx = RequestContext.builder()
                .routeName(PolicyCase.ROUTE)
                .clusterName(PolicyCase.CLUSTER)
                .authority(PolicyCase.AUTHORITY)
                .request(info)
                .endpoints(endpoints)
                .nowMillis(System.currentTimeMillis())
                .random(random)
                .build();
        flow.start(ctx);
        host.deliverPending();
        flow.onStreamEnd();
        host.deliverPending();
        return host.override;
    }

    long redisRoundTrips() {
        return host.roundTrips;
    }

    @Override
    public void close() {
        host.close();
    }

    /** A FlowHost over one blocking Redis connection; everything else is recorded in fields. */
    private static final class RedisFlowHost implements FlowHost {
        private final RedisEndpoint endpoint;
        private final Deque<Runnable> pending = new ArrayDeque<>();
        private final Map<String, Long> counters = new HashMap<>();
        private final byte[] chunk = new byte[64 * 1024];
        private Socket socket;
        private String override;
        private long roundTrips;

        RedisFlowHost(RedisEndpoint endpoint) {
            this.endpoint = endpoint;
        }

        void reset() {
            override = null;
        }

        void deliverPending() {
            Runnable next;
            while ((next = pending.poll()) != null) {
                next.run();
            }
        }

        @Override
        public boolean sendRedis(RedisTarget target, byte[] command, RedisReplyHandler handler) {
            try {
                byte[] reply = roundTrip(command);
                roundTrips++;
                RespValue value = RespDecoder.DEFAULT.decodeExactly(reply, 0, reply.length);
                pending.add(() -> handler.onReply(value));
            } catch (IOException e) {
                close();
                pending.add(() -> handler.onFailure(e.toString()));
            }
            return true;
        }

        private byte[] roundTrip(byte[] query) throws IOException {
            if (socket == null) {
                Socket fresh = new Socket();
                fresh.setTcpNoDelay(true);
                fresh.connect(new InetSocketAddress(endpoint.host(), endpoint.port()), 2000);
                fresh.setSoTimeout(10_000);
                socket = fresh;
            }
            OutputStream out = socket.getOutputStream();
            out.write(query);
            out.flush();
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream reply = new ByteArrayOutputStream();
            while (true) {
                int read = in.read(chunk);
                if (read < 0) {
                    throw new EOFException("redis closed the connection");
                }
                reply.write(chunk, 0, read);
                byte[] bytes = reply.toByteArray();
                RespDecoder.Result result = RespDecoder.DEFAULT.decode(bytes, 0, bytes.length);
                if (result.isComplete()) {
                    return Arrays.copyOf(bytes, result.consumed());
                }
            }
        }

        void close() {
            if (socket != null) {
                try {
                    socket.close();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                } finally {
                    socket = null;
                }
            }
        }

        @Override
        public boolean overrideUpstream(String host) {
            override = host;
            return true;
        }

        /** The bench drives lb_type endpoint policies only; a cluster header has nowhere to go. */
        @Override
        public boolean setRequestHeader(String name, String value) {
            return false;
        }

        @Override
        public void resume() {}

        @Override
        public void localReply(int status, String body) {}

        @Override
        public void decided(Map<String, String> attributes) {}

        @Override
        public void count(String metric) {
            counters.merge(metric, 1L, Long::sum);
        }

        @Override
        public void count(String metric, long delta) {
            counters.merge(metric, delta, Long::sum);
        }

        @Override
        public void addToGauge(String metric, long delta) {}

        @Override
        public void setGauge(String metric, long value) {}

        @Override
        public void record(String metric, long value) {}

        @Override
        public void warn(String message) {}

        @Override
        public long nowMillis() {
            return System.currentTimeMillis();
        }
    }
}
