package io.ailb.lb.redis;

import java.util.Objects;

/** A command bound to the Redis it goes to; used for release and first-response commands. */
public final class RedisCall {
    private final RedisTarget target;
    private final RedisCommand command;
    private final boolean clocked;

    public RedisCall(RedisTarget target, RedisCommand command) {
        this(target, command, false);
    }

    private RedisCall(RedisTarget target, RedisCommand command, boolean clocked) {
        this.target = Objects.requireNonNull(target, "target");
        this.command = Objects.requireNonNull(command, "command");
        this.clocked = clocked;
    }

    /**
     * A call whose last argument is the gateway's clock in ms when it is sent, not when it is made
     * ({@link #sentAt}): a script that times an event.
     */
    public static RedisCall clocked(RedisTarget target, RedisCommand command) {
        return new RedisCall(target, command, true);
    }

    /** The call as sent at {@code nowMillis}: with the clock appended when it is {@link #clocked}. */
    public RedisCall sentAt(long nowMillis) {
        return clocked ? new RedisCall(target, command.withArg(Long.toString(nowMillis)), false) : this;
    }

    public RedisTarget target() {
        return target;
    }

    public RedisCommand command() {
        return command;
    }

    @Override
    public String toString() {
        return command + (clocked ? " +clock" : "") + " @" + target.clusterName();
    }
}
