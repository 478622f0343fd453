package io.ailb.codec.resp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.ArrayDeque;

/**
 * Any bytes as a Redis reply (docs/reliability.md, "Fuzzing"): a value, "incomplete", or a {@link RespException},
 * never another exception; what decodes survives a re-encoding. Plain {@code mvn test} replays the inputs under
 * {@code src/test/resources/io/ailb/codec/resp/RespDecoderFuzzTestInputs}; {@code JAZZER_FUZZ=1} fuzzes.
 */
final class RespDecoderFuzzTest {
    /** Small limits, so short inputs reach the depth, count and length checks too. */
    private static final RespDecoder TIGHT = new RespDecoder(4, 16, 64);

    @FuzzTest(maxDuration = "60s")
    void anyBytesDecodeToAValueOrARespException(byte[] input) {
        checkDecoder(RespDecoder.DEFAULT, input);
        checkDecoder(TIGHT, input);
    }

    private static void checkDecoder(RespDecoder decoder, byte[] input) {
        RespDecoder.Result result;
        try {
            result = decoder.decode(input, 0, input.length);
        } catch (RespException e) {
            assertTrue(e.offset() >= 0 && e.offset() <= input.length, "error offset inside the input: " + e);
            return;
        }
        if (!result.isComplete()) {
            assertEquals(0, result.consumed());
            return;
        }
        assertTrue(result.consumed() > 0 && result.consumed() <= input.length);
        RespValue value = result.value();
        // The reply alone decodes to the same value: nothing after it was read.
        assertEquals(value, decoder.decodeExactly(input, 0, result.consumed()));
        if (hasLineBreakInLineKind(value)) {
            // A RESP3 blob error may hold CR/LF; RESP2 has no way to write that as an error line.
            assertThrows(IllegalArgumentException.class, () -> RespEncoder.encode(value));
            return;
        }
        byte[] canonical = RespEncoder.encode(value);
        assertEquals(value, RespDecoder.DEFAULT.decodeExactly(canonical, 0, canonical.length));
        // Every proper prefix of the reply is incomplete, never an error: a host may decode as the bytes arrive.
        int step = 1 + canonical.length / 256;
        for (int cut = 0; cut < canonical.length; cut += step) {
            assertFalse(RespDecoder.DEFAULT.decode(canonical, 0, cut).isComplete(), "prefix of " + cut + " bytes");
        }
    }

    private static boolean hasLineBreakInLineKind(RespValue root) {
        ArrayDeque<RespValue> pending = new ArrayDeque<>();
        pending.push(root);
        while (!pending.isEmpty()) {
            RespValue value = pending.pop();
            if (value.kind() == RespValue.Kind.ARRAY) {
                value.elements().forEach(pending::push);
            } else if (value.kind() == RespValue.Kind.ERROR || value.kind() == RespValue.Kind.SIMPLE_STRING) {
                for (byte b : value.rawBytes()) {
                    if (b == '\r' || b == '\n') {
                        return true;
                    }
                }
            }
        }
        return false;
    }
}
