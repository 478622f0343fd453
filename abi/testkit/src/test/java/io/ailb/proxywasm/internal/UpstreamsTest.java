package io.ailb.proxywasm.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.proxywasm.ProxyWasm;
import io.ailb.proxywasm.RootContext;
import io.ailb.proxywasm.UpstreamHost;
import io.ailb.proxywasm.Upstreams;
import io.ailb.proxywasm.testkit.FakeHost;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class UpstreamsTest {
    private final FakeHost host = new FakeHost();

    @BeforeEach
    void start() {
        assertTrue(host.start(args -> ProxyWasm.setRootContext(contextId -> new RootContext(contextId) {})));
    }

    @Test
    void theSameHostsGiveTheSameListUntilTheHostReportsOthers() {
        host.withUpstreamHosts(List.of(new UpstreamHost("10.0.0.1:80", "{\"health_status\":\"Healthy\"}")));
        List<UpstreamHost> first = Upstreams.hosts();
        List<UpstreamHost> again = Upstreams.hosts();

        assertEquals(
                2,
                host.callCount("proxy_get_upstream_hosts"),
                "asked every time: the host's view may change any request");
        assertSame(first, again, "decoded once");
        assertEquals("10.0.0.1:80", first.get(0).address());
        assertThrows(UnsupportedOperationException.class, () -> first.add(first.get(0)));

        host.withUpstreamHosts(List.of(new UpstreamHost("10.0.0.1:80", "{\"health_status\":\"Unhealthy\"}")));
        List<UpstreamHost> changed = Upstreams.hosts();
        assertNotSame(first, changed, "new info, new list");
        assertEquals("{\"health_status\":\"Unhealthy\"}", changed.get(0).info());

        host.withUpstreamHosts(List.of());
        assertEquals(List.of(), Upstreams.hosts());
    }
}
