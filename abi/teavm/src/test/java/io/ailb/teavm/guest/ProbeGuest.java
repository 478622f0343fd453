package io.ailb.teavm.guest;

import io.ailb.codec.util.ByteAccess;
import io.ailb.codec.util.Utf8;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.teavm.interop.Address;
import org.teavm.interop.Export;
import org.teavm.interop.Import;

/**
 * A minimal guest that touches every classlib feature whose TeaVM implementation would import from TeaVM's own
 * host modules: Math.log/exp/sqrt/floor/ceil, System.nanoTime, String.intern; and the codec's ByteAccess, which the
 * plugin compiles to single memory instructions. Compiled to Wasm by BuildWasmTest.
 */
public final class ProbeGuest {
    private static final Map<Integer, byte[]> ALLOCATED = new HashMap<>();

    private ProbeGuest() {}

    @Import(module = "env", name = "proxy_log")
    private static native int proxyLog(int level, Address messageData, int messageSize);

    @Import(module = "env", name = "proxy_get_current_time_nanoseconds")
    private static native int proxyGetCurrentTimeNanoseconds(Address returnTime);

    public static void main(String[] args) {}

    @Export(name = "proxy_abi_version_0_2_100")
    public static void abiVersion() {}

    @Export(name = "proxy_on_memory_allocate")
    public static int allocate(int size) {
        byte[] buffer = new byte[size];
        int address = Address.ofData(buffer).toInt();
        ALLOCATED.put(address, buffer);
        return address;
    }

    @Export(name = "probe_log")
    public static double log(double x) {
        return Math.log(x);
    }

    @Export(name = "probe_exp")
    public static double exp(double x) {
        return Math.exp(x);
    }

    /** The load balancer's scoring shape: ln(1 + x), then back through exp. */
    @Export(name = "probe_log1p_exp")
    public static double log1pExp(double x) {
        return Math.exp(Math.log(1 + x));
    }

    @Export(name = "probe_sqrt")
    public static double sqrt(double x) {
        return Math.sqrt(x);
    }

    @Export(name = "probe_floor")
    public static double floor(double x) {
        return Math.floor(x);
    }

    @Export(name = "probe_ceil")
    public static double ceil(double x) {
        return Math.ceil(x);
    }

    /** Nanoseconds between two System.nanoTime() calls around the host's clock; -1 if the clock went backwards. */
    @Export(name = "probe_nano_time")
    public static long nanoTime() {
        long first = System.nanoTime();
        long[] hostTime = new long[1];
        proxyGetCurrentTimeNanoseconds(Address.ofData(hostTime));
        long second = System.nanoTime();
        return first > 0 && second >= first && hostTime[0] != 0 ? second - first : -1;
    }

    /** 1 when two equal strings built at run time intern to the same object. */
    @Export(name = "probe_intern")
    public static int intern() {
        String built = new StringBuilder("lea").append("st-load").toString();
        String other = new StringBuilder("least-").append("load").toString();
        return built != other && built.intern() == other.intern() ? 1 : 0;
    }

    /** Uses the boxed-number helpers TeaVM's classlib lacks; returns 3 + 7 + 2 + 1 = 13 as a double. */
    @Export(name = "probe_number_helpers")
    public static double numberHelpers() {
        return Long.sum(1, 2) + Long.max(7, -7) + Double.min(2.0, 5.0) + Float.sum(0.5f, 0.5f);
    }

    /** Counts distinct words of a generated text with a HashMap and logs a StringBuilder summary; returns the count. */
    @Export(name = "probe_count_words")
    public static int countWords(int words) {
        Map<String, Integer> counts = new HashMap<>();
        for (int i = 0; i < words; i++) {
            counts.merge("w" + (i % 7), 1, Integer::sum);
        }
        StringBuilder message = new StringBuilder("distinct=")
                .append(counts.size())
                .append(" w0=")
                .append(counts.get("w0"));
        byte[] bytes = message.toString().getBytes(StandardCharsets.UTF_8);
        proxyLog(2, Address.ofData(bytes), bytes.length);
        return counts.size();
    }

    /** 40 bytes that differ with {@code seed}, every byte value possible. */
    public static byte[] probeBytes(int seed) {
        byte[] bytes = new byte[40];
        int state = seed;
        for (int i = 0; i < bytes.length; i++) {
            state = state * 1103515245 + 12345;
            bytes[i] = (byte) (state >>> 23);
        }
        return bytes;
    }

    /** {@code ByteAccess.readLongLE}, which the plugin inlines as one load, on {@link #probeBytes}. */
    @Export(name = "probe_read_long_le")
    public static long readLongLE(int seed, int index) {
        return ByteAccess.readLongLE(probeBytes(seed), index);
    }

    /**
     * {@code ByteAccess.copy} (one memory.copy after its range check) of {@link #probeBytes} into 40 bytes of 7s;
     * returns a checksum of the target, or -1 when the copy refused the range.
     */
    @Export(name = "probe_copy")
    public static long copy(int seed, int from, int to, int length) {
        byte[] target = new byte[40];
        java.util.Arrays.fill(target, (byte) 7);
        try {
            ByteAccess.copy(probeBytes(seed), from, target, to, length);
        } catch (IndexOutOfBoundsException e) {
            return -1;
        }
        long sum = 0;
        for (byte b : target) {
            sum = sum * 31 + b;
        }
        return sum;
    }

    /** {@code Utf8.codePoints} (eight bytes per step through readLongLE) of mixed text from {@code from} to the end. */
    @Export(name = "probe_code_points")
    public static int codePoints(int from) {
        byte[] text = "kv \u00e9t\u00e9 \u4e2d\u6587 \ud83d\ude00 cache prefix".getBytes(StandardCharsets.UTF_8);
        return Utf8.codePoints(text, from, text.length);
    }
}
