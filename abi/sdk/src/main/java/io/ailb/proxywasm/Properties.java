package io.ailb.proxywasm;

import io.ailb.codec.util.Utf8;
import io.ailb.proxywasm.internal.Vm;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Host properties addressed by path segments, e.g. {@code get("route_name")}, {@code get("request", "path")}
 * (the ABI joins the segments with NUL).
 */
public final class Properties {
    private Properties() {}

    /** The raw value; empty when the property does not exist. */
    public static Optional<byte[]> get(String... path) {
        return Optional.ofNullable(Vm.abi().getProperty(Arrays.asList(path)));
    }

    /** The value as UTF-8 text; empty when the property does not exist. */
    public static Optional<String> getString(String... path) {
        return get(path).map(Utf8::decode);
    }

    public static void set(List<String> path, byte[] value) {
        Vm.abi().setProperty(path, value);
    }

    public static void set(List<String> path, String value) {
        set(path, Utf8.encode(value));
    }
}
