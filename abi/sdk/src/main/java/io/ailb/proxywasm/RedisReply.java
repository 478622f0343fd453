package io.ailb.proxywasm;

import io.ailb.codec.resp.RespValue;
import io.ailb.proxywasm.bindings.RedisStatus;

/**
 * The outcome of a {@link Redis#call}: either a decoded reply ({@link #value()}, which may itself be a Redis error such
 * as {@code NOSCRIPT}) or a failure (network error, timeout, reset, undecodable bytes) described by {@link #failure()}.
 */
public final class RedisReply {
    private final int token;
    private final int status;
    private final RespValue value;
    private final String failure;

    private RedisReply(int token, int status, RespValue value, String failure) {
        this.token = token;
        this.status = status;
        this.value = value;
        this.failure = failure;
    }

    public static RedisReply of(int token, RespValue value) {
        return new RedisReply(token, RedisStatus.OK, value, null);
    }

    public static RedisReply failed(int token, int status, String failure) {
        return new RedisReply(token, status, null, failure);
    }

    /** The token {@link Redis#call} returned. */
    public int token() {
        return token;
    }

    /** The host's {@link RedisStatus}: OK when a reply arrived, NETWORK_ERROR otherwise. */
    public int status() {
        return status;
    }

    /** True when a reply arrived and decoded; it may still be a Redis error ({@code value().isError()}). */
    public boolean hasValue() {
        return value != null;
    }

    /** The decoded reply, or null when {@link #hasValue()} is false. */
    public RespValue value() {
        return value;
    }

    /** Why there is no value; null when there is one. */
    public String failure() {
        return failure;
    }

    @Override
    public String toString() {
        return value != null ? value.toString() : "failure(" + failure + ")";
    }
}
