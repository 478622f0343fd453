package io.ailb.proxywasm.testkit;

import io.ailb.proxywasm.DataStatus;
import io.ailb.proxywasm.HeaderStatus;
import io.ailb.proxywasm.HttpContext;
import io.ailb.proxywasm.ProxyWasm;
import io.ailb.proxywasm.RootContext;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Predicate;

/** A guest whose callbacks each test scripts, recording the order the host called them in. */
final class ScriptedPlugin {
    final List<String> events = new ArrayList<>();
    Predicate<byte[]> onConfigure = config -> true;
    Runnable onTick = () -> {};
    BiFunction<Integer, Boolean, HeaderStatus> onRequestHeaders = (count, end) -> HeaderStatus.CONTINUE;
    BiFunction<Integer, Boolean, DataStatus> onRequestBody = (size, end) -> DataStatus.CONTINUE;
    BiFunction<Integer, Boolean, HeaderStatus> onResponseHeaders = (count, end) -> HeaderStatus.CONTINUE;
    BiFunction<Integer, Boolean, DataStatus> onResponseBody = (size, end) -> DataStatus.CONTINUE;
    Runnable onLog = () -> {};

    /** The plugin's main. */
    void main(String[] args) {
        ProxyWasm.setRootContext(Root::new);
    }

    private final class Root extends RootContext {
        Root(int contextId) {
            super(contextId);
        }

        @Override
        public boolean onConfigure(byte[] pluginConfiguration) {
            events.add("configure");
            return onConfigure.test(pluginConfiguration);
        }

        @Override
        public void onTick() {
            events.add("tick");
            onTick.run();
        }

        @Override
        public HttpContext newHttpContext(int contextId) {
            return new Stream(contextId);
        }
    }

    private final class Stream extends HttpContext {
        Stream(int contextId) {
            super(contextId);
        }

        @Override
        public HeaderStatus onRequestHeaders(int headerCount, boolean endOfStream) {
            events.add("request headers " + headerCount + (endOfStream ? " end" : ""));
            return onRequestHeaders.apply(headerCount, endOfStream);
        }

        @Override
        public DataStatus onRequestBody(int bodySize, boolean endOfStream) {
            events.add("request body " + bodySize + (endOfStream ? " end" : ""));
            return onRequestBody.apply(bodySize, endOfStream);
        }

        @Override
        public HeaderStatus onResponseHeaders(int headerCount, boolean endOfStream) {
            events.add("response headers " + headerCount + (endOfStream ? " end" : ""));
            return onResponseHeaders.apply(headerCount, endOfStream);
        }

        @Override
        public DataStatus onResponseBody(int bodySize, boolean endOfStream) {
            events.add("response body " + bodySize + (endOfStream ? " end" : ""));
            return onResponseBody.apply(bodySize, endOfStream);
        }

        @Override
        public void onLog() {
            events.add("log");
            onLog.run();
        }

        @Override
        public void onDone() {
            events.add("done");
        }

        @Override
        public void onDelete() {
            events.add("delete");
        }
    }
}
