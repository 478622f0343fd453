package io.ailb.emulator;

import io.ailb.emulator.bindings.RedisStatus;
import io.ailb.emulator.bindings.WasmResult;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Redis client of one VM, as Higress's Envoy fork gives one to a filter: one connection per cluster the guest
 * initialised, tokens 7, 11, 15…, each query sent at once and its raw reply (or status 1) queued for delivery to the
 * root context. Keeps every call and the traffic statistics.
 */
final class RedisCallouts {
    private final Map<String, RedisEndpoint> clusters;
    private final ContextRegistry contexts;
    private final DeliveryQueue deliveries;
    private final GuestRuntime runtime;
    private final Map<String, RedisConnection> connections = new LinkedHashMap<>();
    private final List<RecordedRedisCall> calls = new ArrayList<>();
    private int lastToken = 3;
    private long roundTrips;
    private long failures;
    private long bytesSent;
    private long bytesReceived;
    private String lastFailure = "";
    /** Buffer 9: the reply, only while {@code proxy_on_redis_call_response} runs. */
    private byte[] replyInDelivery;

    /** @param clusters the gateway's Redis clusters by name, without {@code ?db=N} */
    RedisCallouts(
            Map<String, RedisEndpoint> clusters,
            ContextRegistry contexts,
            DeliveryQueue deliveries,
            GuestRuntime runtime) {
        this.clusters = clusters;
        this.contexts = contexts;
        this.deliveries = deliveries;
        this.runtime = runtime;
    }

    /** {@code proxy_redis_init}: (re)opens this VM's connection to a registered cluster. */
    int init(String cluster, String username, String password, int timeoutMillis) {
        String base = clusterBase(cluster);
        RedisEndpoint endpoint = clusters.get(base);
        if (endpoint == null) {
            return WasmResult.BAD_ARGUMENT;
        }
        RedisConnection previous = connections.put(
                base, new RedisConnection(endpoint, username, password, database(cluster), timeoutMillis));
        if (previous != null) {
            previous.close();
        }
        return WasmResult.OK;
    }

    /** Sends the query now and queues the reply (or status 1) for delivery; returns the token, or -status. */
    int call(String cluster, byte[] query) {
        String base = clusterBase(cluster);
        if (!clusters.containsKey(base)) {
            return -WasmResult.BAD_ARGUMENT;
        }
        RedisConnection connection = connections.get(base);
        if (connection == null) {
            return -WasmResult.INTERNAL_FAILURE;
        }
        lastToken += 4;
        int token = lastToken;
        int root = contexts.rootContextId();
        byte[] reply;
        int status;
        bytesSent += query.length;
        try {
            reply = connection.roundTrip(query);
            status = RedisStatus.OK;
            roundTrips++;
            bytesReceived += reply.length;
        } catch (IOException | RuntimeException e) {
            connection.close();
            reply = new byte[0];
            status = RedisStatus.NETWORK_ERROR;
            failures++;
            lastFailure = cluster + " token " + token + ": " + e;
        }
        byte[] answer = reply;
        int answerStatus = status;
        calls.add(new RecordedRedisCall(token, cluster, query, status, reply));
        deliveries.addReply("redis token " + token, () -> deliver(root, token, answerStatus, answer));
        return token;
    }

    private void deliver(int root, int token, int status, byte[] reply) {
        replyInDelivery = reply;
        try {
            runtime.invoke("proxy_on_redis_call_response", root, () -> {
                runtime.exports().proxyOnRedisCallResponse(root, token, status, reply.length);
                return 0;
            });
        } finally {
            replyInDelivery = null;
        }
    }

    /** The reply being delivered, or null outside {@code proxy_on_redis_call_response}. */
    byte[] replyInDelivery() {
        return replyInDelivery;
    }

    List<RecordedRedisCall> calls() {
        return List.copyOf(calls);
    }

    String lastFailure() {
        return lastFailure;
    }

    RedisStats stats() {
        return new RedisStats(roundTrips, failures, bytesSent, bytesReceived);
    }

    void close() {
        connections.values().forEach(RedisConnection::close);
        connections.clear();
    }

    private static String clusterBase(String cluster) {
        int query = cluster.indexOf('?');
        return query < 0 ? cluster : cluster.substring(0, query);
    }

    private static int database(String cluster) {
        int query = cluster.indexOf('?');
        if (query < 0) {
            return 0;
        }
        for (String param : cluster.substring(query + 1).split("&")) {
            if (param.startsWith("db=")) {
                return Integer.parseInt(param.substring(3));
            }
        }
        return 0;
    }
}
