package io.ailb.teavm;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;

/**
 * Reads and rewrites the limits of the one memory a module defines (memory section, id 5). Only what BuildWasm
 * needs: TeaVM declares {@code (memory min max)} and we raise {@code max} after enlarging the GC storage.
 */
final class WasmMemoryLimits {
    private static final int MEMORY_SECTION = 5;

    /** Pages; {@code max} is -1 when the module declares none. */
    record Limits(long min, long max) {}

    private WasmMemoryLimits() {}

    /** @throws IllegalArgumentException when the module defines no memory or not exactly one */
    static Limits read(byte[] module) {
        Section section = memorySection(module);
        Reader r = new Reader(module, section.contentStart);
        if (r.u32() != 1) {
            throw new IllegalArgumentException("expected exactly one memory in the memory section");
        }
        int flags = (int) r.u32();
        if ((flags & ~1) != 0) {
            throw new IllegalArgumentException("unsupported memory flags " + flags + " (shared or 64-bit memory)");
        }
        long min = r.u32();
        long max = (flags & 1) != 0 ? r.u32() : -1;
        return new Limits(min, max);
    }

    /** A copy of the module whose memory declares {@code min} unchanged and the given maximum. */
    static byte[] withMaximum(byte[] module, long maxPages) {
        Limits limits = read(module);
        if (maxPages < limits.min() || maxPages > 65536) {
            throw new IllegalArgumentException("maximum " + maxPages + " pages outside " + limits.min() + "..65536");
        }
        ByteArrayOutputStream content = new ByteArrayOutputStream();
        writeU32(content, 1);
        writeU32(content, 1);
        writeU32(content, limits.min());
        writeU32(content, maxPages);
        byte[] body = content.toByteArray();

        Section section = memorySection(module);
        ByteArrayOutputStream out = new ByteArrayOutputStream(module.length + 8);
        out.write(module, 0, section.idOffset);
        out.write(MEMORY_SECTION);
        writeU32(out, body.length);
        out.write(body, 0, body.length);
        out.write(module, section.end, module.length - section.end);
        return out.toByteArray();
    }

    private record Section(int idOffset, int contentStart, int end) {}

    private static Section memorySection(byte[] module) {
        if (module.length < 8 || !Arrays.equals(Arrays.copyOf(module, 4), new byte[] {0, 'a', 's', 'm'})) {
            throw new IllegalArgumentException("not a Wasm module");
        }
        Reader r = new Reader(module, 8);
        while (r.pos < module.length) {
            int idOffset = r.pos;
            int id = module[r.pos++] & 0xFF;
            long size = r.u32();
            int contentStart = r.pos;
            long end = contentStart + size;
            if (end > module.length) {
                throw new IllegalArgumentException("truncated section " + id + " at " + idOffset);
            }
            if (id == MEMORY_SECTION) {
                return new Section(idOffset, contentStart, (int) end);
            }
            r.pos = (int) end;
        }
        throw new IllegalArgumentException("the module defines no memory");
    }

    private static void writeU32(ByteArrayOutputStream out, long value) {
        do {
            int b = (int) (value & 0x7F);
            value >>>= 7;
            out.write(value != 0 ? b | 0x80 : b);
        } while (value != 0);
    }

    private static final class Reader {
        private final byte[] bytes;
        private int pos;

        Reader(byte[] bytes, int pos) {
            this.bytes = bytes;
            this.pos = pos;
        }

        long u32() {
            long result = 0;
            for (int shift = 0; shift < 35; shift += 7) {
                if (pos >= bytes.length) {
                    throw new IllegalArgumentException("truncated LEB128 at " + pos);
                }
                int b = bytes[pos++] & 0xFF;
                result |= (long) (b & 0x7F) << shift;
                if ((b & 0x80) == 0) {
                    return result;
                }
            }
            throw new IllegalArgumentException("LEB128 too long at " + pos);
        }
    }
}
