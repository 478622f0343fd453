package io.ailb.independent;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.dylibso.chicory.wasm.Parser;
import com.dylibso.chicory.wasm.WasmModule;
import io.roastedroot.proxywasm.LogHandler;
import io.roastedroot.proxywasm.LogLevel;
import io.roastedroot.proxywasm.PluginFactory;
import io.roastedroot.proxywasm.StartException;
import io.roastedroot.proxywasm.WasmException;
import io.roastedroot.proxywasm.internal.Action;
import io.roastedroot.proxywasm.internal.ArrayProxyMap;
import io.roastedroot.proxywasm.internal.HttpRequestAdaptor;
import io.roastedroot.proxywasm.internal.Plugin;
import io.roastedroot.proxywasm.internal.PluginHttpContext;
import io.roastedroot.proxywasm.internal.ProxyMap;
import io.roastedroot.proxywasm.internal.SendResponse;
import io.roastedroot.proxywasm.internal.WasmResult;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * standard-example.wasm on io.roastedroot:proxy-wasm-java-host 0.0.5 (Chicory 1.5.1): a host we did not write, that
 * links only the standard ABI. Asserts what StandardExample documents: configured header added, denied path answered
 * locally with 403, bad configuration rejected.
 */
@Timeout(60)
class JavaHostStandardExampleTest {
    private static final String CONFIG = "{\"header\": \"x-tenant\", \"value\": \"blue\", \"denyPath\": \"/private\"}";

    private static WasmModule module;

    private final List<String> logs = new CopyOnWriteArrayList<>();
    private Plugin plugin;

    @BeforeAll
    static void parseModule() {
        module = Parser.parse(WasmFiles.require(WasmFiles.STANDARD_EXAMPLE));
    }

    @AfterEach
    void closePlugin() {
        if (plugin != null) {
            plugin.close();
        }
    }

    private Plugin start(String pluginConfig) throws Exception {
        LogHandler logger = new LogHandler() {
            @Override
            public void log(LogLevel level, String message) {
                logs.add(level + " " + message);
            }

            @Override
            public LogLevel getLogLevel() {
                return LogLevel.TRACE; // so the example's DEBUG line is emitted too
            }
        };
        // create() runs _start, proxy_on_context_create, proxy_on_vm_start and proxy_on_configure.
        plugin = (Plugin) PluginFactory.builder(module)
                .withName("standard-example")
                .withPluginConfig(pluginConfig)
                .withLogger(logger)
                .build()
                .create();
        return plugin;
    }

    /** One GET stream: request headers (end of stream), then the stream ends (proxy_on_done, _log, _delete). */
    private Request request(String path) throws Exception {
        Request request = new Request(path);
        plugin.lock();
        try {
            request.http = plugin.createHttpContext(request);
            request.action = request.http.context().callOnRequestHeaders(true);
            // Ending the stream also hands the host's "active context" back to the root, which close() expects.
            request.http.context().close();
        } finally {
            plugin.unlock();
        }
        return request;
    }

    @Test
    void configurationIsAcceptedAndLoggedAtInfo() throws Exception {
        start(CONFIG);
        assertTrue(logs.contains("INFO configured: x-tenant=blue, deny /private"), logs.toString());
    }

    @Test
    void requestContinuesWithTheConfiguredHeaderAdded() throws Exception {
        start(CONFIG);
        Request request = request("/public");
        assertEquals(Action.CONTINUE, request.action);
        assertEquals("blue", request.headers.get("x-tenant"));
        assertEquals("example.com", request.headers.get(":authority"));
    }

    @Test
    void requestWithoutLocalResponseSendsNone() throws Exception {
        start(CONFIG);
        Request request = request("/public");
        assertNull(request.http.getSendResponse());
    }

    @Test
    void requestIsLoggedAtDebugWithItsPath() throws Exception {
        start(CONFIG);
        Request request = request("/public");
        assertTrue(logs.contains("DEBUG request " + request.http.context().id() + " for /public"), logs.toString());
    }

    @Test
    void deniedPathIsAnsweredLocallyWith403() throws Exception {
        start(CONFIG);
        Request request = request("/private");
        assertEquals(Action.PAUSE, request.action);
        SendResponse response = request.http.getSendResponse();
        assertNotNull(response, "no local response");
        assertEquals(403, response.statusCode());
        assertEquals("denied\n", new String(response.body(), UTF_8));
        assertEquals("denied_by_example", new String(response.statusCodeDetails(), UTF_8));
        assertEquals("example", response.headers().get("x-denied-by"));
    }

    @Test
    void deniedRequestDoesNotGetTheConfiguredHeader() throws Exception {
        start(CONFIG);
        Request request = request("/private");
        assertNull(request.headers.get("x-tenant"));
    }

    @Test
    void servedAndDeniedStreamsLogNothingAtErrorOrAbove() throws Exception {
        start(CONFIG);
        request("/public");
        request("/private");
        // The SDK logs exceptions it catches at ERROR; none may happen on this host.
        assertTrue(logs.stream().noneMatch(l -> l.startsWith("ERROR") || l.startsWith("CRITICAL")), logs.toString());
    }

    @Test
    void emptyConfigurationFallsBackToTheDocumentedDefaultHeader() throws Exception {
        start("");
        Request request = request("/anything");
        assertEquals(Action.CONTINUE, request.action);
        assertEquals("world", request.headers.get("x-hello"));
    }

    @Test
    void configurationThatIsNotAJsonObjectIsRejected() {
        StartException rejected = assertThrows(StartException.class, () -> start("[1, 2]"));
        assertTrue(rejected.getMessage().contains("proxy_on_configure"), rejected.getMessage());
        assertTrue(logs.contains("ERROR configuration must be a JSON object"), logs.toString());
    }

    /** The downstream request as this host sees it; the guest mutates {@link #headers} in place. */
    private static final class Request implements HttpRequestAdaptor {
        final ProxyMap headers = new ArrayProxyMap();
        PluginHttpContext http;
        Action action;

        Request(String path) {
            headers.add(":method", "GET");
            headers.add(":scheme", "http");
            headers.add(":authority", "example.com");
            headers.add(":path", path);
            headers.add("user-agent", "independent-hosts-test");
        }

        @Override
        public String remoteAddress() {
            return "127.0.0.1";
        }

        @Override
        public int remotePort() {
            return 40000;
        }

        @Override
        public String localAddress() {
            return "127.0.0.1";
        }

        @Override
        public int localPort() {
            return 8080;
        }

        @Override
        public String protocol() {
            return "HTTP/1.1";
        }

        @Override
        public ProxyMap getHttpRequestHeaders() {
            return headers;
        }

        @Override
        public ProxyMap getHttpRequestTrailers() {
            return new ArrayProxyMap();
        }

        @Override
        public ProxyMap getHttpResponseHeaders() {
            return new ArrayProxyMap();
        }

        @Override
        public ProxyMap getHttpResponseTrailers() {
            return new ArrayProxyMap();
        }

        @Override
        public ProxyMap getGrpcReceiveInitialMetaData() {
            return new ArrayProxyMap();
        }

        @Override
        public ProxyMap getGrpcReceiveTrailerMetaData() {
            return new ArrayProxyMap();
        }

        @Override
        public byte[] getProperty(PluginHttpContext context, List<String> path) throws WasmException {
            throw new WasmException(WasmResult.NOT_FOUND);
        }

        @Override
        public WasmResult setProperty(PluginHttpContext context, List<String> path, byte[] value) {
            return WasmResult.NOT_FOUND;
        }
    }
}
