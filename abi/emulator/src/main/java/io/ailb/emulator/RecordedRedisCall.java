package io.ailb.emulator;

import io.ailb.codec.resp.RespDecoder;
import io.ailb.codec.resp.RespValue;
import io.ailb.emulator.bindings.RedisStatus;
import java.util.stream.Collectors;

/**
 * A {@code proxy_redis_call} as the emulator carried it: the guest's raw RESP query, the token it got, and the raw
 * reply with its status ({@link RedisStatus}) as delivered later.
 */
public record RecordedRedisCall(int token, String cluster, byte[] query, int status, byte[] reply) {

    /** The command words, e.g. {@code INCR probe:k}. */
    public String commandText() {
        RespValue command = RespDecoder.DEFAULT.decodeExactly(query, 0, query.length);
        return command.elements().stream().map(RespValue::asString).collect(Collectors.joining(" "));
    }

    /** The decoded reply; empty-handed for a network failure. */
    public RespValue replyValue() {
        if (status != RedisStatus.OK) {
            throw new IllegalStateException("redis call " + token + " failed with status " + status);
        }
        return RespDecoder.DEFAULT.decodeExactly(reply, 0, reply.length);
    }
}
