package io.ailb.emulator;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.dylibso.chicory.wasm.Parser;
import com.dylibso.chicory.wasm.types.NameCustomSection;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class GuestStackTest {
    @Test
    void compiledFramesAreNamedInnermostFirstWithoutTrampolineRepeats() {
        RuntimeException trap = trapWithFrames("func_7", "memoryReadInt", "func_7", "func_3", "call_3", "func_5");

        assertEquals(
                "GC_sweep < GC_collect < func 5",
                GuestStack.describe(new IllegalStateException("outer", trap), names()));
    }

    @Test
    void withoutANameSectionFunctionsKeepTheirIndexAndInterpretedTrapsHaveNoStack() {
        assertEquals("func 7 < func 3", GuestStack.describe(trapWithFrames("func_7", "func_3"), null));
        assertEquals("", GuestStack.describe(trapWithFrames("eval", "call"), names()));
    }

    private static RuntimeException trapWithFrames(String... methods) {
        RuntimeException trap = new RuntimeException("out of bounds memory access");
        StackTraceElement[] frames = new StackTraceElement[methods.length];
        for (int i = 0; i < methods.length; i++) {
            frames[i] =
                    new StackTraceElement("com.dylibso.chicory.$gen.CompiledMachineFuncGroup_0", methods[i], null, -1);
        }
        trap.setStackTrace(frames);
        return trap;
    }

    /** A module with only a name section: function 3 "GC_collect", function 7 "GC_sweep". */
    private static NameCustomSection names() {
        ByteArrayOutputStream functionNames = new ByteArrayOutputStream();
        functionNames.write(2);
        name(functionNames, 3, "GC_collect");
        name(functionNames, 7, "GC_sweep");
        ByteArrayOutputStream payload = new ByteArrayOutputStream();
        bytes(payload, "name".getBytes(StandardCharsets.UTF_8));
        payload.write(1); // subsection: function names
        bytes(payload, functionNames.toByteArray());
        ByteArrayOutputStream module = new ByteArrayOutputStream();
        module.writeBytes(new byte[] {0, 'a', 's', 'm', 1, 0, 0, 0, 0});
        module.write(payload.size());
        module.writeBytes(payload.toByteArray());
        return Parser.parse(module.toByteArray()).nameSection();
    }

    private static void name(ByteArrayOutputStream out, int index, String name) {
        out.write(index);
        bytes(out, name.getBytes(StandardCharsets.UTF_8));
    }

    /** A length (one LEB128 byte: all lengths here are below 128) and the bytes. */
    private static void bytes(ByteArrayOutputStream out, byte[] data) {
        out.write(data.length);
        out.writeBytes(data);
    }
}
