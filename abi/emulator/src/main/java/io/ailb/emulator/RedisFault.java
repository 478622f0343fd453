package io.ailb.emulator;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * What goes wrong with one Redis call, as a value: queue it on {@link Gateway#redisFaults()} and the next matching
 * {@code proxy_redis_call} meets it instead of a clean round trip. Each fault reproduces what Envoy's Redis client
 * hands the filter in that situation; the guest cannot tell it from the real thing.
 */
public final class RedisFault {
    /** Envoy's Redis client answers a script Redis does not hold with this error reply. */
    public static final String NOSCRIPT_MESSAGE = "NOSCRIPT No matching script. Please use EVAL.";

    enum Kind {
        DELAY,
        REPLY_INSTEAD,
        DROP_BEFORE_SEND,
        DROP_AFTER_SEND
    }

    private final Kind kind;
    private final Duration delay;
    private final byte[] reply;

    private RedisFault(Kind kind, Duration delay, byte[] reply) {
        this.kind = kind;
        this.delay = delay;
        this.reply = reply;
    }

    /**
     * The command runs at once, its reply reaches the guest {@code delay} later on the gateway's {@link VirtualClock}
     * (delivered by {@link Gateway#advance}). A delay at or past the connection's timeout ({@code proxy_redis_init})
     * becomes status 1 at the timeout, as Envoy's client gives up then: the command still ran in Redis.
     */
    public static RedisFault delay(Duration delay) {
        if (delay.isNegative()) {
            throw new IllegalArgumentException("a reply cannot come before its call: " + delay);
        }
        return new RedisFault(Kind.DELAY, delay, null);
    }

    /** An error reply ({@code -message}) instead of the command's; the command does not run. */
    public static RedisFault errorReply(String message) {
        return reply("-" + message + "\r\n");
    }

    /** {@code NOSCRIPT}: as if Redis had lost its scripts (a restart, {@code SCRIPT FLUSH}, a failover). */
    public static RedisFault noScript() {
        return errorReply(NOSCRIPT_MESSAGE);
    }

    /** Any bytes as the reply, e.g. garbage the guest must not trust; the command does not run. */
    public static RedisFault reply(String raw) {
        return new RedisFault(Kind.REPLY_INSTEAD, Duration.ZERO, raw.getBytes(StandardCharsets.UTF_8));
    }

    /** The connection drops before the command is written: status 1, nothing ran. The next call reconnects. */
    public static RedisFault dropBeforeSend() {
        return new RedisFault(Kind.DROP_BEFORE_SEND, Duration.ZERO, null);
    }

    /**
     * The connection drops after Redis ran the command, before its reply arrived: status 1, yet its effects stay (the
     * case that leaks counts in a naive plugin). The next call reconnects.
     */
    public static RedisFault dropAfterSend() {
        return new RedisFault(Kind.DROP_AFTER_SEND, Duration.ZERO, null);
    }

    Kind kind() {
        return kind;
    }

    Duration delayValue() {
        return delay;
    }

    byte[] replyBytes() {
        return reply.clone();
    }

    @Override
    public String toString() {
        return switch (kind) {
            case DELAY -> "delay " + delay.toMillis() + " ms";
            case REPLY_INSTEAD -> "reply " + new String(reply, StandardCharsets.UTF_8).strip();
            case DROP_BEFORE_SEND -> "drop before send";
            case DROP_AFTER_SEND -> "drop after send";
        };
    }
}
