package io.ailb.lb.redis;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import org.junit.jupiter.api.Test;

class RedisCommandTest {
    private static final LuaScript SCRIPT = new LuaScript("s", "return 1");

    @Test
    void aScriptCallIsSentFirstAsEvalShaWithItsKeyCount() {
        RedisCommand command = RedisCommand.script(SCRIPT, Arrays.asList("k1", "k2"), Collections.singletonList("x"));
        assertEquals(Arrays.asList("EVALSHA", SCRIPT.sha1(), "2", "k1", "k2", "x"), command.arguments());
    }

    @Test
    void encodeEvalCarriesTheScriptSource() {
        RedisCommand command = RedisCommand.script(SCRIPT, Collections.singletonList("k"), Collections.emptyList());
        String expected = "*4\r\n$4\r\nEVAL\r\n$8\r\nreturn 1\r\n$1\r\n1\r\n$1\r\nk\r\n";
        assertArrayEquals(expected.getBytes(StandardCharsets.UTF_8), command.encodeEval());
    }

    @Test
    void encodeEvalShaEqualsTheFirstEncoding() {
        RedisCommand command = RedisCommand.script(SCRIPT, Collections.emptyList(), Collections.singletonList("a"));
        assertArrayEquals(command.encode(), command.encodeEvalSha());
    }

    @Test
    void aPlainCommandEncodesItsArguments() {
        String expected = "*3\r\n$4\r\nHGET\r\n$1\r\nk\r\n$1\r\nf\r\n";
        assertArrayEquals(
                expected.getBytes(StandardCharsets.UTF_8),
                RedisCommand.plain("HGET", "k", "f").encode());
    }

    @Test
    void aPlainCommandHasNoEvalForm() {
        assertThrows(
                IllegalStateException.class, () -> RedisCommand.plain("PING").encodeEval());
    }
}
