package io.ailb.emulator;

import io.ailb.codec.resp.RespDecoder;
import io.ailb.codec.resp.RespValue;
import io.ailb.emulator.bindings.RedisStatus;
import io.ailb.emulator.bindings.WasmResult;
import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Redis client of one VM, as Higress's Envoy fork gives one to a filter: one connection per cluster the guest
 * initialised, tokens 7, 11, 15…, each query sent at once and its raw reply (or status 1) queued for delivery to the
 * root context. Keeps every call and the traffic statistics. A call may meet a fault the gateway has in store
 * ({@link RedisFaults}).
 */
final class RedisCallouts {
    private final Map<String, RedisEndpoint> clusters;
    private final ContextRegistry contexts;
    private final DeliveryQueue deliveries;
    private final GuestRuntime runtime;
    private final RedisFaults faults;
    private final Clock clock;
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
            GuestRuntime runtime,
            RedisFaults faults,
            Clock clock) {
        this.clusters = clusters;
        this.contexts = contexts;
        this.deliveries = deliveries;
        this.runtime = runtime;
        this.faults = faults;
        this.clock = clock;
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
        RedisFault fault = faults.pending() == 0 ? null : faults.take(commandWord(query));
        bytesSent += query.length;
        Outcome outcome = fault == null ? roundTrip(connection, query) : faulty(connection, query, fault);
        if (outcome.status() == RedisStatus.OK) {
            roundTrips++;
            bytesReceived += outcome.reply().length;
        } else {
            failures++;
            lastFailure = cluster + " token " + token + ": " + outcome.failure();
        }
        calls.add(new RecordedRedisCall(token, cluster, query, outcome.status(), outcome.reply()));
        Runnable delivery = () -> deliver(root, token, outcome.status(), outcome.reply());
        if (outcome.delayMillis() > 0) {
            deliveries.addReplyAt(clock.millis() + outcome.delayMillis(), "redis token " + token, delivery);
        } else {
            deliveries.addReply("redis token " + token, delivery);
        }
        return token;
    }

    /** What the guest will get for one call: status, raw reply, and after how long (0: with the next delivery). */
    private record Outcome(int status, byte[] reply, long delayMillis, String failure) {
        static Outcome replied(byte[] reply) {
            return new Outcome(RedisStatus.OK, reply, 0, "");
        }

        static Outcome failed(String why) {
            return new Outcome(RedisStatus.NETWORK_ERROR, new byte[0], 0, why);
        }
    }

    private static Outcome roundTrip(RedisConnection connection, byte[] query) {
        try {
            return Outcome.replied(connection.roundTrip(query));
        } catch (IOException | RuntimeException e) {
            connection.close();
            return Outcome.failed(e.toString());
        }
    }

    private static Outcome faulty(RedisConnection connection, byte[] query, RedisFault fault) {
        return switch (fault.kind()) {
            case REPLY_INSTEAD -> Outcome.replied(fault.replyBytes());
            case DROP_BEFORE_SEND -> {
                connection.close();
                yield Outcome.failed("injected: connection dropped before the command was sent");
            }
            case DROP_AFTER_SEND -> {
                Outcome ran = roundTrip(connection, query);
                connection.close();
                yield ran.status() == RedisStatus.OK
                        ? Outcome.failed("injected: connection dropped after the command ran")
                        : ran;
            }
            case DELAY -> {
                Outcome ran = roundTrip(connection, query);
                long delay = fault.delayValue().toMillis();
                if (ran.status() != RedisStatus.OK || delay == 0) {
                    yield ran;
                }
                // Envoy's client gives up at the timeout; the reply that comes later is thrown away.
                yield delay >= connection.timeoutMillis()
                        ? new Outcome(
                                RedisStatus.NETWORK_ERROR,
                                new byte[0],
                                connection.timeoutMillis(),
                                "injected: reply delayed " + delay + " ms, timed out after "
                                        + connection.timeoutMillis() + " ms")
                        : new Outcome(RedisStatus.OK, ran.reply(), delay, "");
            }
        };
    }

    /** The command's first word, or "" for a query that is not a RESP array of strings. */
    private static String commandWord(byte[] query) {
        try {
            RespValue command = RespDecoder.DEFAULT.decodeExactly(query, 0, query.length);
            return command.elements().isEmpty() ? "" : command.elements().get(0).asString();
        } catch (RuntimeException notACommand) {
            return "";
        }
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
