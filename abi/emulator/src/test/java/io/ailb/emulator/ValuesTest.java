package io.ailb.emulator;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.jr.ob.JSON;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The emulator's value types, without a VM. */
final class ValuesTest {

    @Test
    void upstreamInfoIsFormattedLikeNlohmannDumpZero() {
        ClusterHost host = new ClusterHost("10.0.0.1:80", "Healthy", "a 1\nb \"2\"\n");
        assertEquals("{\n\"health_status\": \"Healthy\",\n\"metrics\": \"a 1\\nb \\\"2\\\"\\n\"\n}", host.infoJson());
    }

    @Test
    void upstreamInfoParsesAsJson() throws Exception {
        Map<String, Object> info = JSON.std.mapFrom(new ClusterHost("h:1", "Unhealthy", "m 1\n").infoJson());
        assertEquals(Map.of("health_status", "Unhealthy", "metrics", "m 1\n"), info);
    }

    @Test
    void replacingAHeaderKeepsItsPositionAndDropsDuplicates() {
        HeaderMap map =
                HeaderMap.of("a", "1", "X-Dup", "2", "c", "3", "x-dup", "4").replace("x-dup", "5");
        assertEquals(List.of(Map.entry("a", "1"), Map.entry("X-Dup", "5"), Map.entry("c", "3")), map.pairs());
    }

    @Test
    void headerMapsSurviveTheProxyWasmSerialisation() {
        HeaderMap map = HeaderMap.of(":path", "/😀", "empty", "", "中", "文");
        assertEquals(map.pairs(), HeaderMap.decode(map.encode()).pairs());
    }

    @Test
    void redisUrlsCarryCredentials() {
        assertEquals(
                new RedisEndpoint("db.local", 6380, "user", "secret"),
                RedisEndpoint.parse("redis://user:secret@db.local:6380"));
    }
}
