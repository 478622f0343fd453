package io.ailb.lb.redis;

import java.util.Objects;

/** A command bound to the Redis it goes to; used for release commands. */
public final class RedisCall {
    private final RedisTarget target;
    private final RedisCommand command;

    public RedisCall(RedisTarget target, RedisCommand command) {
        this.target = Objects.requireNonNull(target, "target");
        this.command = Objects.requireNonNull(command, "command");
    }

    public RedisTarget target() {
        return target;
    }

    public RedisCommand command() {
        return command;
    }

    @Override
    public String toString() {
        return command + " @" + target.clusterName();
    }
}
