package io.ailb.proxywasm.testkit;

import io.ailb.codec.resp.RespDecoder;
import io.ailb.codec.resp.RespEncoder;
import io.ailb.codec.resp.RespValue;
import java.nio.charset.StandardCharsets;

/**
 * What the host hands back for one Redis callout: reply bytes (a value, or a Redis error such as {@code NOSCRIPT}), a
 * network failure (status NETWORK_ERROR, also how Higress reports a timeout), or nothing yet ({@link #pending()}).
 */
public final class RedisAnswer implements Callout.Answer {
    private static final RedisAnswer PENDING = new RedisAnswer(Kind.PENDING, null);
    private static final RedisAnswer NETWORK_ERROR = new RedisAnswer(Kind.NETWORK_ERROR, null);

    private enum Kind {
        REPLY,
        NETWORK_ERROR,
        PENDING
    }

    private final Kind kind;
    private final byte[] reply;

    private RedisAnswer(Kind kind, byte[] reply) {
        this.kind = kind;
        this.reply = reply;
    }

    /** A reply as Redis would send it, e.g. {@code RespValue.integer(1)}. */
    public static RedisAnswer reply(RespValue value) {
        return new RedisAnswer(Kind.REPLY, RespEncoder.encode(value));
    }

    /** An error reply, e.g. {@code error("ERR wrong number of arguments")}. */
    public static RedisAnswer error(String message) {
        return reply(RespValue.error(message));
    }

    /** The error reply of {@code EVALSHA} for a script the server does not hold (after a restart, on a new server). */
    public static RedisAnswer noScript() {
        return error("NOSCRIPT No matching script. Please use EVAL.");
    }

    /** Reply bytes exactly as given, for replies a guest must survive (truncated, undecodable). */
    public static RedisAnswer raw(byte[] resp) {
        return new RedisAnswer(Kind.REPLY, resp.clone());
    }

    /** Status NETWORK_ERROR without reply bytes: connection refused or lost, or the call timed out. */
    public static RedisAnswer networkError() {
        return NETWORK_ERROR;
    }

    /** No answer yet: the callout waits until the test delivers one ({@link RedisCallout#deliver(RedisAnswer)}). */
    public static RedisAnswer pending() {
        return PENDING;
    }

    @Override
    public boolean isPending() {
        return kind == Kind.PENDING;
    }

    public boolean isNetworkError() {
        return kind == Kind.NETWORK_ERROR;
    }

    /** The reply bytes; empty for a network error or a pending answer. */
    public byte[] replyBytes() {
        return reply == null ? new byte[0] : reply.clone();
    }

    /** The decoded reply. */
    public RespValue value() {
        if (reply == null) {
            throw new IllegalStateException("no reply: " + this);
        }
        return RespDecoder.DEFAULT.decodeExactly(reply, 0, reply.length);
    }

    @Override
    public String toString() {
        switch (kind) {
            case PENDING:
                return "pending";
            case NETWORK_ERROR:
                return "network error";
            default:
                return new String(reply, StandardCharsets.UTF_8).trim();
        }
    }
}
