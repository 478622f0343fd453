package io.ailb.lb.flow;

import io.ailb.codec.resp.RespValue;

/** Receives the outcome of one {@link FlowHost#sendRedis}: a decoded reply (possibly a Redis error) or a failure. */
public interface RedisReplyHandler {
    void onReply(RespValue reply);

    /** The call failed: network error, timeout, or a reply that could not be decoded. */
    void onFailure(String reason);
}
