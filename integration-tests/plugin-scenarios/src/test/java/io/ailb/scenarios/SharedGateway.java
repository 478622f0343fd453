package io.ailb.scenarios;

import io.ailb.lb.shell.ShellFixture;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A gateway running the plugin with one configuration, as a shared scenario sees it: the built {@code .wasm} in the
 * emulator, or the shell's classes on the testkit's fake host. Both have the three backends of {@link ShellFixture}
 * and {@link PluginFixture}'s Redis.
 */
interface SharedGateway {

    /** A stream of {@link ShellFixture#ROUTE} to {@link ShellFixture#CLUSTER}. */
    Stream newStream();

    /** One HTTP stream through the plugin. */
    interface Stream {
        void sendRequestHeaders(List<Map.Entry<String, String>> headers, boolean endOfStream);

        void sendRequestBody(String chunk, boolean endOfStream);

        /** The end callbacks, as after a complete response. */
        void complete();

        void reset();

        Optional<String> upstreamOverride();

        boolean requestHeadersForwarded();

        /** Status and body of the local reply, if the plugin answered the request itself. */
        Optional<Map.Entry<Integer, String>> localReply();
    }
}
