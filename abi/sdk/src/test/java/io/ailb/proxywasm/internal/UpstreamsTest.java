package io.ailb.proxywasm.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ailb.codec.map.ProxyMaps;
import io.ailb.proxywasm.UpstreamHost;
import io.ailb.proxywasm.Upstreams;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class UpstreamsTest {
    private final FakeAbi host = new FakeAbi();

    @BeforeEach
    void install() {
        Vm.install(host);
    }

    @Test
    void theSameHostsGiveTheSameListUntilTheHostReportsOthers() {
        host.upstreamHosts = map("10.0.0.1:80", "{\"health_status\":\"Healthy\"}");
        List<UpstreamHost> first = Upstreams.hosts();
        List<UpstreamHost> again = Upstreams.hosts();

        assertEquals(2, host.upstreamHostsCalls, "asked every time: the host's view may change any request");
        assertSame(first, again, "decoded once");
        assertEquals("10.0.0.1:80", first.get(0).address());
        assertThrows(UnsupportedOperationException.class, () -> first.add(first.get(0)));

        host.upstreamHosts = map("10.0.0.1:80", "{\"health_status\":\"Unhealthy\"}");
        List<UpstreamHost> changed = Upstreams.hosts();
        assertNotSame(first, changed, "new info, new list");
        assertEquals("{\"health_status\":\"Unhealthy\"}", changed.get(0).info());

        host.upstreamHosts = new byte[0];
        assertEquals(List.of(), Upstreams.hosts());
    }

    private static byte[] map(String address, String info) {
        return ProxyMaps.encode(List.of(Map.entry(address, info)));
    }
}
