package io.ailb.proxywasm.testkit;

import java.util.List;

/**
 * Answers the Redis callouts of one cluster, called when the guest makes the call ({@code proxy_redis_call}); the
 * answer reaches the guest after the guest's current callback has returned (or when the test delivers it, see
 * {@link FakeHost#withManualDelivery()}). {@link RealRedis} answers from a real server.
 */
@FunctionalInterface
public interface RedisResponder {
    RedisAnswer answer(RedisCallout call);

    /** The same answer to every call. */
    static RedisResponder always(RedisAnswer answer) {
        return call -> answer;
    }

    /** The n-th call gets the n-th answer; a call beyond the list fails the test. */
    static RedisResponder inOrder(RedisAnswer... answers) {
        List<RedisAnswer> script = List.of(answers);
        int[] next = {0};
        return call -> {
            if (next[0] >= script.size()) {
                throw new IllegalStateException("no answer scripted for Redis call " + (next[0] + 1) + ": " + call);
            }
            return script.get(next[0]++);
        };
    }
}
