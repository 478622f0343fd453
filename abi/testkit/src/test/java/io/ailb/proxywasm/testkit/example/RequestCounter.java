package io.ailb.proxywasm.testkit.example;

import io.ailb.proxywasm.HeaderStatus;
import io.ailb.proxywasm.HttpContext;
import io.ailb.proxywasm.ProxyWasm;
import io.ailb.proxywasm.Redis;
import io.ailb.proxywasm.RootContext;
import io.ailb.proxywasm.Stream;
import java.nio.charset.StandardCharsets;

/** Counts requests in Redis: above the limit it answers 429; when Redis fails it lets the request through. */
public final class RequestCounter extends RootContext {
    static final String REDIS = "outbound|6379||redis.static";
    static final long LIMIT = 2;

    RequestCounter(int contextId) {
        super(contextId);
    }

    public static void main(String[] args) {
        ProxyWasm.setRootContext(RequestCounter::new);
    }

    @Override
    public boolean onConfigure(byte[] pluginConfiguration) {
        Redis.init(REDIS, "", "", 500);
        return true;
    }

    @Override
    public HttpContext newHttpContext(int contextId) {
        return new HttpContext(contextId) {
            @Override
            public HeaderStatus onRequestHeaders(int headerCount, boolean endOfStream) {
                Redis.command(
                        REDIS,
                        reply -> {
                            if (reply.hasValue()
                                    && !reply.value().isError()
                                    && reply.value().asLong() > LIMIT) {
                                Stream.sendLocalResponse(429, "slow down".getBytes(StandardCharsets.UTF_8));
                            } else {
                                Stream.continueRequest();
                            }
                        },
                        "INCR",
                        "requests");
                return HeaderStatus.STOP_ITERATION;
            }
        };
    }
}
