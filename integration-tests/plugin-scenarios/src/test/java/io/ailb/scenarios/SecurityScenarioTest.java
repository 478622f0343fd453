package io.ailb.scenarios;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.emulator.ConfigurationRejectedException;
import io.ailb.emulator.HttpStream;
import io.ailb.emulator.LogLine;
import io.ailb.emulator.PluginVm;
import io.ailb.emulator.RecordedRedisCall;
import io.ailb.lb.config.LbRule;
import io.ailb.lb.policy.PolicyRegistry;
import io.ailb.lb.shell.ShellFixture;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What the plugin must never reveal, through the real .wasm with every log level enabled (the emulator reports TRACE):
 * the Redis password in any log line, whatever happens to the configuration or the connection; the prompt in any log
 * line or in anything sent to Redis (Lua gets hashes and addresses only).
 */
@Timeout(120)
class SecurityScenarioTest {
    private static final String PASSWORD = "pw-7f3a-never-logged";
    private static final String MARKER = "prompt-secret-4c1d";

    @BeforeEach
    void emptyRedis() {
        PluginFixture.redis().flushAll();
    }

    private static void assertNoLineContains(List<LogLine> logs, String secret) {
        for (LogLine line : logs) {
            assertFalse(line.message().contains(secret), "logged: " + line);
        }
    }

    @Test
    void theRedisPasswordIsNeverLoggedWhenRedisRefusesItOrTheConfigurationIsRefused() {
        // The test Redis has no password: AUTH fails, and every call after it; all of it is logged somewhere.
        String accepted = "{\"lb_policy\":\"cache_aware\",\"lb_config\":{"
                + ShellFixture.redisConfig("\"password\":\"" + PASSWORD + "\",\"unknownField\":1") + "}}";
        PluginVm vm = PluginFixture.gateway(accepted).build().startVm();
        for (int i = 0; i < 3; i++) {
            HttpStream stream = PluginFixture.send(vm, ShellFixture.chat("be brief", "hello " + i));
            stream.complete();
        }
        assertTrue(vm.isAlive());
        assertTrue(vm.logs().size() > 2, vm.logs().toString());
        assertNoLineContains(vm.logs(), PASSWORD);

        List<LogLine> refusal = new ArrayList<>();
        String refused = "{\"lb_policy\":\"prefix_cache\",\"lb_config\":{"
                + ShellFixture.redisConfig("\"password\":\"" + PASSWORD + "\",\"timeout\":-1") + "}}";
        ConfigurationRejectedException e =
                assertThrows(ConfigurationRejectedException.class, () -> PluginFixture.gateway(refused)
                        .withLogSink(refusal::add)
                        .build()
                        .startVm());
        assertFalse(e.getMessage().contains(PASSWORD), e.getMessage());
        assertFalse(refusal.isEmpty());
        assertNoLineContains(refusal, PASSWORD);
    }

    @Test
    void promptsReachNeitherTheLogNorRedis() {
        for (String policy : PolicyRegistry.names()) {
            if (!PolicyRegistry.lbType(policy).equals(LbRule.LB_TYPE_ENDPOINT)) {
                continue;
            }
            PluginVm vm = PluginFixture.gateway(
                            "{\"lb_policy\":\"" + policy + "\",\"lb_config\":{" + ShellFixture.redisConfig("") + "}}")
                    .build()
                    .startVm();
            for (int turn = 0; turn < 3; turn++) {
                HttpStream stream = PluginFixture.send(
                        vm, ShellFixture.chat("system " + MARKER, "user " + MARKER + " " + turn, "answer " + MARKER));
                stream.complete();
            }
            assertNoLineContains(vm.logs(), MARKER);
            for (RecordedRedisCall call : vm.redisCalls()) {
                assertFalse(
                        new String(call.query(), StandardCharsets.UTF_8).contains(MARKER),
                        policy + " sent the prompt to Redis: " + call.commandText());
            }
        }
    }
}
