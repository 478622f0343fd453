package io.ailb.scenarios;

import io.ailb.emulator.RedisEndpoint;
import io.ailb.lb.shell.ShellFixture;
import io.ailb.proxywasm.testkit.FakeHost;
import io.ailb.proxywasm.testkit.FakeStream;
import io.ailb.proxywasm.testkit.RealRedis;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The shell's classes on the JVM, on the testkit's fake host, answered by the same real Redis. */
final class TestkitGateway implements SharedGateway {
    private final FakeHost host;

    private TestkitGateway(FakeHost host) {
        this.host = host;
    }

    /** PluginFixture's Redis, one connection for every gateway of the run. */
    private static RealRedis redis;

    static synchronized SharedGateway start(String pluginConfig) {
        if (redis == null) {
            RedisEndpoint endpoint = PluginFixture.redis().endpoint();
            redis = RealRedis.at(endpoint.host(), endpoint.port(), endpoint.username(), endpoint.password());
        }
        FakeHost host = ShellFixture.started(ShellFixture.host(pluginConfig, redis));
        return new TestkitGateway(host);
    }

    @Override
    public Stream newStream() {
        FakeStream stream = ShellFixture.stream(host);
        return new Stream() {
            @Override
            public void sendRequestHeaders(List<Map.Entry<String, String>> headers, boolean endOfStream) {
                stream.sendRequestHeaders(headers, endOfStream);
            }

            @Override
            public void sendRequestBody(String chunk, boolean endOfStream) {
                stream.sendRequestBody(chunk, endOfStream);
            }

            @Override
            public void complete() {
                stream.complete();
            }

            @Override
            public void reset() {
                stream.reset();
            }

            @Override
            public Optional<String> upstreamOverride() {
                return stream.upstreamOverride();
            }

            @Override
            public boolean requestHeadersForwarded() {
                return stream.requestHeadersForwarded();
            }

            @Override
            public Optional<Map.Entry<Integer, String>> localReply() {
                return stream.localResponse().map(reply -> Map.entry(reply.status(), reply.bodyText()));
            }
        };
    }
}
