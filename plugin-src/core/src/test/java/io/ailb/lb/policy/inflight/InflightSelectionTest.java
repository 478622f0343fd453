package io.ailb.lb.policy.inflight;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.ailb.lb.redis.RedisCommand;
import io.ailb.lb.redis.RedisKeys;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class InflightSelectionTest {
    @Test
    void leaseIdsAreSixteenLowerCaseHexDigits() {
        assertEquals("0000000000000000", InflightSelection.leaseId(0));
        assertEquals("ffffffffffffffff", InflightSelection.leaseId(-1));
        assertEquals("0123456789abcdef", InflightSelection.leaseId(0x0123456789abcdefL));
    }

    @Test
    void aReleaseNamesItsLeaseAndTheKeysThatHoldIt() {
        RedisCommand release = InflightSelection.release(RedisKeys.of("r", "c"), "00000000000000ff");
        assertEquals(InflightScripts.RELEASE, release.script());
        assertEquals(Arrays.asList("llb:{r|c}:inflight", "llb:{r|c}:leases", "llb:{r|c}:lease-hosts"), release.keys());
        assertEquals(Arrays.asList("00000000000000ff"), release.args());
    }

    @Test
    void hostsTravelInArgvNotInKeys() {
        RedisCommand command = InflightSelection.command(
                RedisKeys.of("r", "c"),
                Arrays.asList("H1"),
                Arrays.asList("a:1", "b:1"),
                Arrays.asList("u:1"),
                new InflightSelection.Settings(7, 60, 3600, 1800, 600),
                5,
                "00000000000000ff");
        assertEquals(
                Arrays.asList(
                        "llb:{r|c}:inflight",
                        "llb:{r|c}:cleaned",
                        "llb:{r|c}:leases",
                        "llb:{r|c}:lease-hosts",
                        "llb:{r|c}:p:H1"),
                command.keys());
        assertEquals(
                Arrays.asList("5", "7", "60", "3600", "1800", "00000000000000ff", "600", "2", "a:1", "b:1", "u:1"),
                command.args());
    }
}
