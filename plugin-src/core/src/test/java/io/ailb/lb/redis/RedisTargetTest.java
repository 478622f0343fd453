package io.ailb.lb.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ailb.lb.config.ConfigException;
import io.ailb.lb.util.TestConfig;
import org.junit.jupiter.api.Test;

class RedisTargetTest {
    @Test
    void theClusterNameIsTheHigressOutboundName() {
        assertEquals(
                "outbound|6379||redis.static", new RedisTarget("redis.static", 6379, "", "", 3000, 0).clusterName());
    }

    @Test
    void aNonDefaultDatabaseIsAppendedToTheClusterName() {
        assertEquals(
                "outbound|6379||redis.dns?db=2", new RedisTarget("redis.dns", 6379, "", "", 3000, 2).clusterName());
    }

    @Test
    void omittedFieldsTakeTheHigressDefaults() throws ConfigException {
        RedisTarget target =
                RedisTarget.fromConfig(TestConfig.view("{\"serviceFQDN\":\"r.static\",\"servicePort\":80}"));
        assertEquals(new RedisTarget("r.static", 80, "", "", 3000, 0), target);
    }

    @Test
    void targetsWithDifferentPasswordsAreDifferent() {
        assertNotEquals(new RedisTarget("r", 1, "u", "p1", 3000, 0), new RedisTarget("r", 1, "u", "p2", 3000, 0));
    }

    @Test
    void aMissingServicePortIsRejectedByName() {
        ConfigException e = assertThrows(
                ConfigException.class, () -> RedisTarget.fromConfig(TestConfig.view("{\"serviceFQDN\":\"r.static\"}")));
        assertEquals("lb_config.servicePort: is required", e.getMessage());
    }

    @Test
    void aMissingServiceFqdnIsRejectedByName() {
        ConfigException e = assertThrows(
                ConfigException.class, () -> RedisTarget.fromConfig(TestConfig.view("{\"servicePort\":6379}")));
        assertEquals("lb_config.serviceFQDN: is required", e.getMessage());
    }

    @Test
    void aPortOutsideTheTcpRangeIsRejectedWithItsValue() {
        ConfigException e = assertThrows(
                ConfigException.class,
                () -> RedisTarget.fromConfig(TestConfig.view("{\"serviceFQDN\":\"r\",\"servicePort\":0}")));
        assertEquals("lb_config.servicePort=0: must be an integer in [1, 65535]", e.getMessage());
    }

    @Test
    void databasesAreThoseOfADefaultRedisServer() throws ConfigException {
        assertEquals(
                15,
                RedisTarget.fromConfig(TestConfig.view("{\"serviceFQDN\":\"r\",\"servicePort\":1,\"database\":15}"))
                        .database());
        ConfigException e = assertThrows(
                ConfigException.class,
                () -> RedisTarget.fromConfig(
                        TestConfig.view("{\"serviceFQDN\":\"r\",\"servicePort\":1,\"database\":100000}")));
        assertEquals("lb_config.database=100000: must be an integer in [0, 15]", e.getMessage());
    }

    @Test
    void thePasswordNeverAppearsInToString() {
        assertEquals(
                -1, new RedisTarget("r", 1, "u", "s3cret", 3000, 0).toString().indexOf("s3cret"));
    }
}
