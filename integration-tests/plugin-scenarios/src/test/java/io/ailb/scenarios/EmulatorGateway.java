package io.ailb.scenarios;

import io.ailb.emulator.HeaderMap;
import io.ailb.emulator.HttpStream;
import io.ailb.emulator.PluginVm;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The built {@code .wasm} in the emulator, with a real Redis. */
final class EmulatorGateway implements SharedGateway {
    private final PluginVm vm;

    private EmulatorGateway(PluginVm vm) {
        this.vm = vm;
    }

    static SharedGateway start(String pluginConfig) {
        return new EmulatorGateway(PluginFixture.gateway(pluginConfig).build().startVm());
    }

    @Override
    public Stream newStream() {
        HttpStream stream = PluginFixture.stream(vm);
        return new Stream() {
            @Override
            public void sendRequestHeaders(List<Map.Entry<String, String>> headers, boolean endOfStream) {
                stream.sendRequestHeaders(HeaderMap.copyOf(headers), endOfStream);
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
                return stream.localReply().map(reply -> Map.entry(reply.status(), reply.bodyText()));
            }
        };
    }
}
