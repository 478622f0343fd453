package io.ailb.emulator;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Hand-assembled minimal proxy-wasm modules (no toolchain needed): one {@code env.proxy_log} import, memory, an
 * allocator, and a {@code proxy_on_request_headers} that logs a marker and then either returns a status or traps.
 */
final class TinyWasm {
    static final String MARKER = "about to trap";
    private static final int MARKER_ADDRESS = 16;
    private static final byte I32 = 0x7f;

    private String abiExport = "proxy_abi_version_0_2_100";
    private String extraImportModule;
    private String extraImportName;
    private int requestHeadersResult = -1;

    /** The module declares this ABI version export instead of 0.2.100. */
    TinyWasm withAbiExport(String name) {
        this.abiExport = name;
        return this;
    }

    /** The module also imports {@code module.name} as a {@code () -> ()} function. */
    TinyWasm withImport(String module, String name) {
        this.extraImportModule = module;
        this.extraImportName = name;
        return this;
    }

    /** {@code proxy_on_request_headers} returns {@code status} instead of trapping. */
    TinyWasm returning(int status) {
        this.requestHeadersResult = status;
        return this;
    }

    byte[] build() {
        Bytes module = new Bytes().raw(0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00);
        // Types: 0 = (i32 i32 i32) -> i32, 1 = () -> (), 2 = (i32) -> i32.
        module.section(
                1,
                new Bytes()
                        .u(3)
                        .raw(0x60, 3, I32, I32, I32, 1, I32)
                        .raw(0x60, 0, 0)
                        .raw(0x60, 1, I32, 1, I32));
        Bytes imports = new Bytes()
                .u(extraImportName == null ? 1 : 2)
                .name("env")
                .name("proxy_log")
                .raw(0x00, 0);
        if (extraImportName != null) {
            imports.name(extraImportModule).name(extraImportName).raw(0x00, 1);
        }
        module.section(2, imports);
        int firstOwn = extraImportName == null ? 1 : 2;
        module.section(3, new Bytes().u(3).u(1).u(2).u(0));
        module.section(5, new Bytes().u(1).raw(0x00, 1));
        module.section(
                7,
                new Bytes()
                        .u(4)
                        .name("memory")
                        .raw(0x02, 0)
                        .name(abiExport)
                        .raw(0x00)
                        .u(firstOwn)
                        .name("proxy_on_memory_allocate")
                        .raw(0x00)
                        .u(firstOwn + 1)
                        .name("proxy_on_request_headers")
                        .raw(0x00)
                        .u(firstOwn + 2));
        Bytes headersBody = new Bytes().u(0).raw(0x41, 2, 0x41, MARKER_ADDRESS, 0x41, MARKER.length(), 0x10, 0, 0x1a);
        if (requestHeadersResult < 0) {
            headersBody.raw(0x00);
        } else {
            headersBody.raw(0x41, requestHeadersResult);
        }
        headersBody.raw(0x0b);
        module.section(
                10,
                new Bytes()
                        .u(3)
                        .sized(new Bytes().u(0).raw(0x0b))
                        .sized(new Bytes().u(0).raw(0x41, 0x80, 0x08, 0x0b))
                        .sized(headersBody));
        module.section(
                11, new Bytes().u(1).raw(0x00, 0x41, MARKER_ADDRESS, 0x0b).name(MARKER));
        return module.toByteArray();
    }

    /** A little byte writer with unsigned LEB128. */
    private static final class Bytes {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();

        Bytes raw(int... values) {
            for (int value : values) {
                out.write(value);
            }
            return this;
        }

        Bytes u(int value) {
            int rest = value;
            do {
                int b = rest & 0x7f;
                rest >>>= 7;
                out.write(rest == 0 ? b : b | 0x80);
            } while (rest != 0);
            return this;
        }

        Bytes name(String text) {
            byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
            u(bytes.length);
            out.writeBytes(bytes);
            return this;
        }

        Bytes sized(Bytes content) {
            u(content.out.size());
            out.writeBytes(content.out.toByteArray());
            return this;
        }

        Bytes section(int id, Bytes content) {
            raw(id);
            return sized(content);
        }

        byte[] toByteArray() {
            return out.toByteArray();
        }
    }
}
