package io.ailb.lb.flow;

import io.ailb.lb.redis.RedisTarget;
import java.util.Map;

/**
 * What a {@link RequestFlow} needs from the gateway. The Wasm shell implements it over the proxy-wasm SDK; tests and the
 * simulator implement it directly. Calls happen on the VM's single thread.
 */
public interface FlowHost {
    /**
     * Sends RESP bytes to the Redis of {@code target}. When it returns true the handler is called exactly once, later,
     * never from inside this call. False means nothing was sent and the handler will not be called.
     */
    boolean sendRedis(RedisTarget target, byte[] command, RedisReplyHandler handler);

    /** Pins the request to {@code host} ({@code ip:port}); false when the gateway refused. */
    boolean overrideUpstream(String host);

    /** Sets (replaces) a request header; false when the gateway refused. */
    boolean setRequestHeader(String name, String value);

    /** Lets a request that {@link RequestFlow#start} held go on. */
    void resume();

    /** Answers the request locally; the request is not forwarded. */
    void localReply(int status, String body);

    /** The decision's attributes (for the access log), once per request. */
    void decided(Map<String, String> attributes);

    /** Adds one to a counter. */
    void count(String metric);

    /** Adds {@code delta} (not negative) to a counter. */
    void count(String metric, long delta);

    /** Moves a gauge by {@code delta}, up or down. */
    void addToGauge(String metric, long delta);

    /** Sets a gauge to {@code value}. */
    void setGauge(String metric, long value);

    /** Records one sample of a histogram. */
    void record(String metric, long value);

    /** Logs at warning level: something an operator should see. */
    void warn(String message);

    long nowMillis();
}
