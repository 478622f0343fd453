package io.ailb.lb.rediscluster;

import io.ailb.codec.resp.RespValue;
import io.ailb.hostkit.TestRedisCluster;
import io.ailb.lb.redis.RedisCommand;

/** Sends the core's Redis commands to a {@link TestRedisCluster} as the shell does: EVALSHA first, EVAL after NOSCRIPT. */
final class ClusterClient {
    private final TestRedisCluster cluster;

    /** True after the last {@link #run} had to fall back from EVALSHA to EVAL. */
    boolean lastCallNeededEval;

    ClusterClient(TestRedisCluster cluster) {
        this.cluster = cluster;
    }

    /** The command sent to the node of its first key (a script call) or of {@code args[1]} (a plain command). */
    RespValue run(RedisCommand command) {
        if (!command.isScript()) {
            lastCallNeededEval = false;
            return cluster.send(command.arguments().get(1), command.encode());
        }
        String routingKey = command.keys().get(0);
        RespValue reply = cluster.send(routingKey, command.encodeEvalSha());
        lastCallNeededEval = reply.isError() && reply.errorCode().equals("NOSCRIPT");
        return lastCallNeededEval ? cluster.send(routingKey, command.encodeEval()) : reply;
    }
}
