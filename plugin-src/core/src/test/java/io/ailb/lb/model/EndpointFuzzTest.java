package io.ailb.lb.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.ailb.codec.json.Json;
import io.ailb.codec.json.JsonValue;
import io.ailb.codec.map.ProxyMapException;
import io.ailb.codec.map.ProxyMaps;
import java.util.List;
import java.util.Map;

/**
 * The upstream host list as the gateway hands it over (docs/reliability.md, "Fuzzing"): a serialized proxy-wasm map of
 * addresses to info JSON. Any bytes give a list of endpoints or one {@link ProxyMapException} (the shell then leaves
 * the request to the cluster's balancer); any info text gives an endpoint (invalid JSON: an
 * unhealthy one), healthy only for {@code "health_status": "Healthy"}.
 */
final class EndpointFuzzTest {

    @FuzzTest(maxDuration = "60s")
    void anyHostMapGivesEndpointsOrAProxyMapException(byte[] hostMap) {
        List<Map.Entry<String, String>> hosts;
        try {
            hosts = ProxyMaps.decode(hostMap, 0, hostMap.length);
        } catch (ProxyMapException e) {
            return;
        }
        for (Map.Entry<String, String> host : hosts) {
            Endpoint endpoint = Endpoint.fromHostInfo(host.getKey(), host.getValue());
            assertEquals(host.getKey(), endpoint.address());
        }
    }

    @FuzzTest(maxDuration = "60s")
    void anyInfoTextGivesAnEndpoint(FuzzedDataProvider data) {
        String address = data.consumeString(32);
        String info = data.consumeRemainingAsString();
        Endpoint endpoint = Endpoint.fromHostInfo(address, info);
        assertNotNull(endpoint);
        assertEquals(address, endpoint.address());
        if (endpoint.healthy()) {
            JsonValue status = Json.parse(info).get("health_status");
            assertEquals("Healthy", status.asString(), "healthy only when the info says so: " + info);
        }
    }
}
