package io.ailb.proxywasm.testkit;

import io.ailb.codec.resp.RespDecoder;
import io.ailb.codec.resp.RespValue;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** One {@code proxy_redis_call} the guest made: what it sent, the token it got, and the answer and its delivery. */
public final class RedisCallout extends Callout<RedisAnswer> {
    private static final int SHOWN_WORD_LENGTH = 48;

    private final int token;
    private final String cluster;
    private final int database;
    private final byte[] query;
    private final int callerContextId;

    RedisCallout(
            FakeHost host,
            int token,
            String cluster,
            int database,
            byte[] query,
            int callerContextId,
            int rootContextId) {
        super(host, rootContextId, RedisAnswer.pending());
        this.token = token;
        this.cluster = cluster;
        this.database = database;
        this.query = query.clone();
        this.callerContextId = callerContextId;
    }

    public int token() {
        return token;
    }

    /** The cluster name as the guest passed it to {@code proxy_redis_call}. */
    public String cluster() {
        return cluster;
    }

    /** The database {@code proxy_redis_init} selected for the cluster ({@code ?db=N}; 0 by default). */
    public int database() {
        return database;
    }

    /** The raw RESP bytes the guest sent. */
    public byte[] query() {
        return query.clone();
    }

    /** The command words, e.g. {@code [EVALSHA, 1b2c…, 3, …]}; empty when the query is not a RESP array. */
    public List<String> command() {
        RespDecoder.Result decoded = RespDecoder.DEFAULT.decode(query, 0, query.length);
        if (!decoded.isComplete() || decoded.value().kind() != RespValue.Kind.ARRAY) {
            return Collections.emptyList();
        }
        List<String> words = new ArrayList<>();
        for (RespValue element : decoded.value().elements()) {
            words.add(element.asString());
        }
        return words;
    }

    /** The first command word in upper case ({@code EVALSHA}, {@code GET}); "" when there is none. */
    public String commandName() {
        List<String> words = command();
        return words.isEmpty() ? "" : words.get(0).toUpperCase();
    }

    /** The context whose callback made the call. */
    public int callerContextId() {
        return callerContextId;
    }

    /** The command with long words (a script's text) cut short. */
    @Override
    public String toString() {
        StringBuilder text = new StringBuilder("redis token ").append(token);
        for (String word : command()) {
            text.append(' ')
                    .append(word.length() <= SHOWN_WORD_LENGTH ? word : word.substring(0, SHOWN_WORD_LENGTH) + "…");
        }
        return text.append(" → ").append(currentAnswer()).toString();
    }
}
