package io.ailb.sim.bench;

import io.ailb.codec.hash.PrefixHash;
import io.ailb.codec.hash.Sha1;
import io.ailb.emulator.WasmArtifacts;
import io.ailb.sim.report.BenchmarksDoc;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * SHA-1 against {@link PrefixHash} inside TeaVM-compiled Wasm on V8, the engine Envoy runs plugins on by default,
 * with the same Java code on the JVM for reference: the SDK probe ({@code probe.wasm}, op {@code hash}) hashes a
 * request body N times per request in Node ({@code v8-host.js}); a baseline op that reads the body and hashes nothing
 * is timed next to it, so time per hash = (guest time − baseline guest time) / N. Prints a table and writes section
 * {@code v8-hash} of docs/benchmarks.md.
 *
 * <p>{@code mvn -q -pl simulator compile exec:java@v8-hash} (options: {@code -Dexec.args="--help"}).
 */
public final class V8HashBench {
    static final String COMMAND = "mvn -q -pl simulator compile exec:java@v8-hash";
    static final String SECTION = "v8-hash";
    static final int[] DEFAULT_SIZES = {2 << 10, 32 << 10, 256 << 10, 1 << 20};
    static final String SHA1 = "sha1";
    static final String PREFIX = "prefix";
    static final String BASELINE = "none";

    private static final int BODY_SEED = 7;
    private static final String PLUGIN_CONFIG = "{}";
    /** Issue 9's goal: prefix_cache ≤ 2 ms per request at this body size on V8. */
    private static final int GOAL_SIZE = 256 << 10;

    /** Command-line options. */
    static final class Options extends V8BenchOptions {
        int rounds = 3;
        int bytesPerRequest = 4 << 20;
        double jvmWarmUpSeconds = 1;
        double jvmSeconds = 2;

        Options() {
            super(DEFAULT_SIZES, COMMAND, "v8-hash");
            warmUpSeconds = 2;
            measureSeconds = 3;
            minSamples = 5;
            hangSeconds = 300;
        }

        static Options parse(String[] args) {
            Options o = new Options();
            for (int i = 0; i < args.length; i++) {
                String value = i + 1 < args.length ? args[i + 1] : null;
                switch (args[i]) {
                    case "--rounds" -> o.rounds = Integer.parseInt(value);
                    case "--bytes-per-request" -> o.bytesPerRequest = PluginCostBench.parseSize(value);
                    case "--jvm-seconds" -> o.jvmSeconds = Double.parseDouble(value);
                    case "--quick" -> {
                        o.quick = true;
                        o.rounds = 1;
                        o.warmUpSeconds = 0.3;
                        o.measureSeconds = 0.5;
                        o.minSamples = 3;
                        o.jvmWarmUpSeconds = 0.2;
                        o.jvmSeconds = 0.3;
                        i--;
                    }
                    default -> {
                        if (!o.readV8(args[i], value)) {
                            usage();
                            System.exit(args[i].equals("--help") ? 0 : 2);
                        }
                    }
                }
                i++;
            }
            if (o.rounds < 1 || o.bytesPerRequest < 1) {
                usage();
                System.exit(2);
            }
            if (o.wasm == null) {
                o.wasm = WasmArtifacts.path("probe");
            }
            return o;
        }

        private static void usage() {
            System.err.println("usage: V8HashBench [--quick] [--wasm probe.wasm] [--doc path|-] [--node executable]"
                    + " [--sizes 2k,32k,...] [--rounds n] [--bytes-per-request 4m] [--warmup-seconds s]"
                    + " [--warmup-max n] [--measure-seconds s] [--min-samples n] [--max-samples n]"
                    + " [--jvm-seconds s] [--hang-seconds s] [--work-dir path]\n"
                    + "  --rounds             V8 cells per hash and size; each round times the baseline first, then"
                    + " the two hashes, in the other order than the round before\n"
                    + "  --bytes-per-request  bytes hashed per request: N = max(1, this / body size) hashes\n"
                    + "  --quick              one short round; prints the table and leaves docs/benchmarks.md alone"
                    + " unless --doc is given");
        }

        int repeat(int size) {
            return Math.max(1, bytesPerRequest / size);
        }
    }

    /** One V8 cell: a hash (or the baseline) on one body size in one round. */
    record Cell(int round, String hash, int size, int repeat, V8Host.Cell measured, String failure) {}

    /** Time per hash (ns) on one engine; NaN where it could not be measured. */
    record PerHash(double sha1Nanos, double prefixNanos) {
        double ratio() {
            return sha1Nanos / prefixNanos;
        }
    }

    private V8HashBench() {}

    public static void main(String[] args) throws Exception {
        Options options = Options.parse(args);
        V8Host node = options.nodeOrExit("V8HashBench");
        if (!Files.isRegularFile(options.wasm)) {
            System.err.println(options.wasm.toAbsolutePath() + " is missing: build abi/example first");
            System.exit(1);
        }
        Files.createDirectories(options.workDir);
        List<V8Host.Body> bodies = bodies(options);
        System.out.println("== V8: " + bodies.size() + " cells");
        V8Host.Run run = new V8Host.Run(
                options.wasm,
                new V8Host.Policy("probe", PLUGIN_CONFIG),
                null,
                false,
                options.limits(),
                V8CostBench.LOG_LEVEL_INFO,
                false,
                List.of(),
                options.hangSeconds);
        V8Host.Report report = node.run(run, bodies, options.workDir, V8HashBench::progress);
        List<Cell> cells = cells(options, bodies, report);
        System.out.println("== JVM");
        Map<Integer, PerHash> jvm = new TreeMap<>();
        for (int size : options.sizes) {
            PerHash perHash = jvm(options, body(size), options.repeat(size));
            jvm.put(size, perHash);
            System.out.printf(
                    Locale.ROOT,
                    "%-8s sha1 %s  prefix %s per hash%n",
                    PluginCostBench.sizeName(size),
                    nanos(perHash.sha1Nanos()),
                    nanos(perHash.prefixNanos()));
        }
        String markdown = markdown(options, report, cells, jvm);
        System.out.println();
        System.out.println(markdown);
        Path target = options.target();
        if (!target.toString().equals("-")) {
            BenchmarksDoc.replaceSection(target, SECTION, markdown);
            System.out.println("wrote section " + SECTION + " of "
                    + target.toAbsolutePath().normalize());
        }
        boolean failed = report.failure() != null || cells.stream().anyMatch(c -> c.failure() != null);
        System.exit(failed ? 1 : 0);
    }

    /** The conversation body of {@code size} bytes, the same bytes on both engines. */
    static byte[] body(int size) {
        return ConversationBodies.conversation(size, BODY_SEED);
    }

    /**
     * Per round and size: the baseline, then SHA-1 and PrefixHash, their order swapped every round so that neither
     * hash always runs right after the baseline or first on a warmer machine.
     */
    static List<V8Host.Body> bodies(Options options) throws Exception {
        List<V8Host.Body> bodies = new ArrayList<>();
        for (int size : options.sizes) {
            Path file = options.workDir.resolve("conversation-" + size + ".json");
            Files.write(file, body(size));
        }
        for (int round = 0; round < options.rounds; round++) {
            List<String> order = round % 2 == 0 ? List.of(BASELINE, SHA1, PREFIX) : List.of(BASELINE, PREFIX, SHA1);
            for (int size : options.sizes) {
                Path file = options.workDir.resolve("conversation-" + size + ".json");
                for (String hash : order) {
                    bodies.add(new V8Host.Body(
                            hash,
                            size,
                            ConversationBodies.MESSAGES,
                            file,
                            List.of(
                                    Map.entry("x-probe-op", "hash"),
                                    Map.entry("x-probe-arg", hash),
                                    Map.entry("x-probe-repeat", Integer.toString(options.repeat(size))))));
                }
            }
        }
        return bodies;
    }

    /**
     * The host's cells in the order of {@code bodies}, each checked: the guest answered 200 with the digest the JVM
     * computes for the same bytes (SHA-1 from the JDK, PrefixHash from the codec).
     */
    static List<Cell> cells(Options options, List<V8Host.Body> bodies, V8Host.Report report) {
        List<Cell> cells = new ArrayList<>();
        int perRound = bodies.size() / options.rounds;
        for (int i = 0; i < bodies.size(); i++) {
            V8Host.Body body = bodies.get(i);
            int round = i / perRound;
            int repeat = options.repeat(body.bytes());
            V8Host.Cell measured = i < report.cells().size() ? report.cells().get(i) : null;
            String failure = null;
            if (measured == null) {
                failure = report.failure() == null ? "not reported" : "not run: " + report.failure();
            } else if (!measured.shape().equals(body.shape()) || measured.bytes() != body.bytes()) {
                failure = "out of order: got " + measured.shape() + " " + measured.bytes();
            } else if (measured.samples() == 0 || measured.traps() > 0) {
                failure = "no samples (" + measured.traps() + " traps, " + measured.status() + ")";
            } else {
                String answer = answer(report, i);
                String expected = expectedAnswer(body.shape(), body(body.bytes()));
                if (!expected.equals(answer)) {
                    failure = "guest answered '" + answer + "', the JVM computes '" + expected + "'";
                }
            }
            cells.add(new Cell(round, body.shape(), body.bytes(), repeat, measured, failure));
        }
        return cells;
    }

    /** The last local reply of the {@code index}-th cell's requests. */
    private static String answer(V8Host.Report report, int index) {
        return report.localReplies().stream()
                .filter(reply -> reply.cell() == index)
                .map(reply -> reply.status() == 200 ? reply.body() : "status " + reply.status() + ": " + reply.body())
                .findFirst()
                .orElse("(no local reply)");
    }

    /** What the probe answers for {@code body} (PROBE.md, op hash). */
    static String expectedAnswer(String hash, byte[] body) {
        String length = "len=" + body.length;
        return switch (hash) {
            case SHA1 -> length + " sha1=" + HexFormat.of().formatHex(jdkSha1(body));
            case PREFIX -> length + " prefix=" + PrefixHash.hexOf(body, 0, body.length);
            default -> length;
        };
    }

    private static byte[] jdkSha1(byte[] body) {
        try {
            return MessageDigest.getInstance("SHA-1").digest(body);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-1", e);
        }
    }

    /**
     * Time per hash on V8 in one round: (hash cell's guest median − baseline's) / hashes per request; NaN when a
     * cell failed.
     */
    static double v8Nanos(List<Cell> cells, int round, String hash, int size) {
        Cell baseline = find(cells, round, BASELINE, size);
        Cell hashed = find(cells, round, hash, size);
        if (baseline == null || hashed == null || baseline.failure() != null || hashed.failure() != null) {
            return Double.NaN;
        }
        return (double) (hashed.measured().medianNs() - baseline.measured().medianNs()) / hashed.repeat();
    }

    private static Cell find(List<Cell> cells, int round, String hash, int size) {
        return cells.stream()
                .filter(c -> c.round() == round && c.hash().equals(hash) && c.size() == size)
                .findFirst()
                .orElse(null);
    }

    /** The median over rounds of one size's per-round figures (NaN ignored; NaN if none). */
    static double medianOver(double[] values) {
        double[] finite =
                Arrays.stream(values).filter(v -> !Double.isNaN(v)).sorted().toArray();
        int n = finite.length;
        if (n == 0) {
            return Double.NaN;
        }
        return n % 2 == 1 ? finite[n / 2] : (finite[n / 2 - 1] + finite[n / 2]) / 2;
    }

    // ---- the JVM ----------------------------------------------------------------------------------------------------

    /** Keeps the JIT from dropping digests nobody reads. */
    private static volatile long sink;

    /**
     * Time per hash of {@code body} on this JVM: a warm-up, then batches of {@code repeat} hashes, SHA-1 and
     * PrefixHash alternating batch by batch; the median batch of each, per hash. The codec's own classes, as compiled
     * into the module.
     */
    static PerHash jvm(Options options, byte[] body, int repeat) {
        Sha1 sha1 = new Sha1();
        PrefixHash prefix = new PrefixHash();
        long acc = 0;
        long warmUpEnd = System.nanoTime() + (long) (options.jvmWarmUpSeconds * 1e9);
        while (System.nanoTime() < warmUpEnd) {
            acc += sha1Batch(sha1, body, repeat) + prefixBatch(prefix, body, repeat);
        }
        List<Long> sha1Times = new ArrayList<>();
        List<Long> prefixTimes = new ArrayList<>();
        long end = System.nanoTime() + (long) (options.jvmSeconds * 2e9);
        while (System.nanoTime() < end || sha1Times.size() < options.minSamples) {
            long start = System.nanoTime();
            acc += sha1Batch(sha1, body, repeat);
            long middle = System.nanoTime();
            acc += prefixBatch(prefix, body, repeat);
            long stop = System.nanoTime();
            sha1Times.add(middle - start);
            prefixTimes.add(stop - middle);
        }
        sink = acc;
        return new PerHash(median(sha1Times) / repeat, median(prefixTimes) / repeat);
    }

    private static long sha1Batch(Sha1 sha1, byte[] body, int repeat) {
        long acc = 0;
        for (int i = 0; i < repeat; i++) {
            sha1.update(body, 0, body.length);
            acc += sha1.digest()[0];
        }
        return acc;
    }

    private static long prefixBatch(PrefixHash prefix, byte[] body, int repeat) {
        long acc = 0;
        for (int i = 0; i < repeat; i++) {
            prefix.reset(0, 0);
            prefix.update(body, 0, body.length);
            prefix.finish();
            acc += prefix.digestA();
        }
        return acc;
    }

    private static double median(List<Long> values) {
        long[] array = values.stream().mapToLong(Long::longValue).toArray();
        return Samples.median(array, array.length);
    }

    // ---- output -----------------------------------------------------------------------------------------------------

    private static void progress(String line) {
        if (line.startsWith("cell\t")) {
            V8Host.Cell cell = V8Host.cell(line);
            System.out.printf(
                    Locale.ROOT,
                    "%-7s %8s  guest median %10s  p90 %10s  cpu %10s  n=%d  traps %d  %s%n",
                    cell.shape(),
                    PluginCostBench.sizeName(cell.bytes()),
                    Samples.micros(cell.medianNs()),
                    Samples.micros(cell.p90Ns()),
                    Samples.micros(cell.cpuMedianNs()),
                    cell.samples(),
                    cell.traps(),
                    cell.status());
        } else if (line.startsWith("trap\t") || line.startsWith("error\t")) {
            System.out.println("  " + line.replace('\t', ' '));
        }
    }

    /** A time per hash: ns below 10 µs, µs above. */
    static String nanos(double ns) {
        if (Double.isNaN(ns) || ns < 0) {
            return "n/a";
        }
        if (ns < 10_000) {
            return String.format(Locale.ROOT, "%.2f µs", ns / 1e3);
        }
        return Samples.micros(Math.round(ns));
    }

    /** Throughput in MB/s (10^6 bytes per second). */
    static String megabytesPerSecond(int bytes, double ns) {
        return Double.isNaN(ns) || ns <= 0 ? "n/a" : String.format(Locale.ROOT, "%,.0f", bytes * 1e3 / ns);
    }

    static String ratio(double value) {
        return Double.isNaN(value) || value <= 0 ? "n/a" : String.format(Locale.ROOT, "%.1f×", value);
    }

    static String markdown(Options options, V8Host.Report report, List<Cell> cells, Map<Integer, PerHash> jvm) {
        StringBuilder md = new StringBuilder();
        md.append("## SHA-1 against PrefixHash in TeaVM-compiled Wasm on V8\n\n");
        md.append("Command: `").append(options.commandLine).append("` (V8HashBench");
        if (!options.commandLine.equals(COMMAND)) {
            md.append("; with the modules installed `").append(COMMAND).append("` runs the same");
        }
        md.append("; option `--help` lists the options, `--quick` makes a short run). ");
        if (report.moduleBytes() >= 0) {
            md.append(String.format(
                    Locale.ROOT,
                    "Module `%s` %s (the SDK probe, TeaVM 0.13.1 as the plugin is built); Node %s, V8 %s; JDK %s;"
                            + " %s, %d cores (shared with other work).",
                    options.wasm.getFileName(),
                    Samples.bytes(report.moduleBytes()),
                    report.nodeVersion(),
                    report.v8Version(),
                    System.getProperty("java.version"),
                    report.cpuModel(),
                    report.cpus()));
        }
        md.append("\n\nMethod: the probe's `hash` op (abi/example/PROBE.md) hashes the request body N times per"
                + " request inside the module, each time from scratch, with the codec's `Sha1` or `PrefixHash`"
                + " (key (0, 0)), and answers the digest; op argument `none` reads the body and hashes nothing. Each"
                + " is driven through whole requests by the V8 host of the v8-cost section (no Redis). **Per hash**"
                + " = (guest median − `none`'s guest median) / N, so the body's copy into the module and the"
                + " request's callbacks are not counted.");
        md.append(String.format(
                Locale.ROOT,
                " N = max(1, %s / body size). Bodies: the conversation bodies of the v8-cost section (JSON chat text)."
                        + " Per cell ≤ %s s / ≤ %d warm-up requests, then ≤ %s s / ≤ %d timed requests (at least %d)."
                        + " %d round%s: each times `none`, then the two hashes, in the other order than the round"
                        + " before; the V8 figures are the median over rounds, the ratio's range is over rounds. The"
                        + " guest's digests are checked against the JVM's (JDK SHA-1, codec PrefixHash) for every cell."
                        + " **JVM**: the same codec classes in this JDK (C2), batches of N hashes, SHA-1 and PrefixHash"
                        + " alternating batch by batch for %s s each after a %s s warm-up; median batch per hash."
                        + " MB/s = 10^6 bytes per second.\n\n",
                PluginCostBench.sizeName(options.bytesPerRequest),
                trim(options.warmUpSeconds),
                options.warmUpMax,
                trim(options.measureSeconds),
                options.maxSamples,
                options.minSamples,
                options.rounds,
                options.rounds == 1 ? "" : "s",
                trim(options.jvmSeconds),
                trim(options.jvmWarmUpSeconds)));
        md.append("| body | N | engine | SHA-1 per hash | SHA-1 MB/s | PrefixHash per hash | PrefixHash MB/s"
                + " | **SHA-1 / PrefixHash** | ratio per round |\n");
        md.append("|---|---:|---|---:|---:|---:|---:|---:|---|\n");
        Map<Integer, PerHash> v8 = new TreeMap<>();
        for (int size : options.sizes) {
            double[] sha1 = new double[options.rounds];
            double[] prefix = new double[options.rounds];
            List<String> roundRatios = new ArrayList<>();
            for (int round = 0; round < options.rounds; round++) {
                sha1[round] = v8Nanos(cells, round, SHA1, size);
                prefix[round] = v8Nanos(cells, round, PREFIX, size);
                roundRatios.add(ratio(sha1[round] / prefix[round]));
            }
            v8.put(size, new PerHash(medianOver(sha1), medianOver(prefix)));
            row(md, size, options.repeat(size), "V8, Wasm", v8.get(size), String.join(", ", roundRatios));
            PerHash onJvm = jvm.get(size);
            row(md, size, options.repeat(size), "JVM", onJvm, "");
        }
        md.append("\nGuest time per request of each cell (median, µs), round by round:\n\n");
        md.append("| round | body | N | `none` | `sha1` | `prefix` | samples (none / sha1 / prefix) | note |\n");
        md.append("|---:|---|---:|---:|---:|---:|---|---|\n");
        for (int round = 0; round < options.rounds; round++) {
            for (int size : options.sizes) {
                Cell none = find(cells, round, BASELINE, size);
                Cell sha1 = find(cells, round, SHA1, size);
                Cell prefix = find(cells, round, PREFIX, size);
                List<String> notes = new ArrayList<>();
                for (Cell cell : List.of(none, sha1, prefix)) {
                    if (cell.failure() != null) {
                        notes.add(cell.hash() + ": " + cell.failure());
                    }
                }
                md.append(String.format(
                        Locale.ROOT,
                        "| %d | %s | %d | %s | %s | %s | %s / %s / %s | %s |\n",
                        round + 1,
                        PluginCostBench.sizeName(size),
                        options.repeat(size),
                        guest(none),
                        guest(sha1),
                        guest(prefix),
                        samples(none),
                        samples(sha1),
                        samples(prefix),
                        String.join("; ", notes)));
            }
        }
        if (report.failure() != null) {
            md.append("\nThe node run failed: ").append(report.failure()).append('\n');
        }
        choice(md, v8, jvm);
        return md.toString();
    }

    /** The conclusion, with this run's figures. */
    private static void choice(StringBuilder md, Map<Integer, PerHash> v8, Map<Integer, PerHash> jvm) {
        int largest = v8.keySet().stream().max(Integer::compare).orElseThrow();
        PerHash v8Largest = v8.get(largest);
        md.append("\n### The choice: PrefixHash, and why a router needs no cryptographic hash\n\n");
        md.append(String.format(
                Locale.ROOT,
                "- **Measured**: in the module on V8 PrefixHash hashes %s faster than SHA-1 (%s against %s MB/s at"
                        + " %s), on the JVM %s. The gap is wider in Wasm: PrefixHash reads each 16-byte stripe as two"
                        + " 64-bit words that the TeaVM plugin compiles to one `i64.load` each (`ByteAccess`), while"
                        + " SHA-1 works through checked array accesses (its 80-word schedule and the block's bytes)."
                        + " PrefixHash even runs faster in V8 than on this JVM, where `ByteAccess.readLongLE` is the"
                        + " eight byte reads it is written as (C2 does not merge them into one load). Both are written"
                        + " for TeaVM (rotations inline, no call in the inner loop).%s Prefix keys use PrefixHash"
                        + " (`BlockHasher`); SHA-1 stays for Redis script ids (`EVALSHA`), computed once per script.\n",
                range(v8),
                megabytesPerSecond(largest, v8Largest.sha1Nanos()),
                megabytesPerSecond(largest, v8Largest.prefixNanos()),
                PluginCostBench.sizeName(largest),
                range(jvm),
                perRequest(v8.get(GOAL_SIZE))));
        md.append("- **Collision odds**: 128-bit digests; with n distinct prefix keys live in one route's Redis"
                + " namespace the birthday bound gives p ≈ n² / 2^129 that any two collide: 10^9 keys ≈ 1.5 × 10^-21,"
                + " 10^12 keys ≈ 1.5 × 10^-15.\n");
        md.append("- **Why not cryptographic**: a key only says which backend probably holds a prompt prefix's KV"
                + " cache. A collision costs one mis-estimated cache hit: the request goes to a backend that computes"
                + " the whole prompt anyway, slower, never a wrong answer (responses never depend on the key). The"
                + " inputs are the clients' own prompts, and keys are namespaced per route (`llb:{route|cluster}:…`),"
                + " so one route cannot disturb another. A client who knows another user's prompt prefix could craft"
                + " a colliding prompt and cost that user cache misses, which plain traffic to that backend can do as"
                + " well; SHA-1 would not stop such a client either, since chosen-prefix collisions of SHA-1 have"
                + " been computed in practice since 2020.\n");
    }

    /** What hashing alone costs a request of issue 9's goal size on V8, if that size was measured. */
    private static String perRequest(PerHash atGoalSize) {
        if (atGoalSize == null) {
            return "";
        }
        return String.format(
                Locale.ROOT,
                " Hashing a %s prompt once costs %s of guest time with SHA-1 against %s with PrefixHash, where"
                        + " issue 9's goal for the whole request is 2 ms.",
                PluginCostBench.sizeName(GOAL_SIZE),
                nanos(atGoalSize.sha1Nanos()),
                nanos(atGoalSize.prefixNanos()));
    }

    /** "a–b×" over the sizes, or one figure when they agree to a tenth. */
    private static String range(Map<Integer, PerHash> bySize) {
        double[] ratios = bySize.values().stream()
                .mapToDouble(PerHash::ratio)
                .filter(r -> !Double.isNaN(r))
                .sorted()
                .toArray();
        if (ratios.length == 0) {
            return "n/a";
        }
        String low = String.format(Locale.ROOT, "%.1f", ratios[0]);
        String high = String.format(Locale.ROOT, "%.1f", ratios[ratios.length - 1]);
        return low.equals(high) ? low + "×" : low + "–" + high + "×";
    }

    private static void row(StringBuilder md, int size, int repeat, String engine, PerHash perHash, String rounds) {
        md.append(String.format(
                Locale.ROOT,
                "| %s | %d | %s | %s | %s | %s | %s | **%s** | %s |\n",
                PluginCostBench.sizeName(size),
                repeat,
                engine,
                nanos(perHash.sha1Nanos()),
                megabytesPerSecond(size, perHash.sha1Nanos()),
                nanos(perHash.prefixNanos()),
                megabytesPerSecond(size, perHash.prefixNanos()),
                ratio(perHash.ratio()),
                rounds));
    }

    private static String guest(Cell cell) {
        return cell.measured() == null || cell.measured().samples() == 0
                ? "n/a"
                : Samples.micros(cell.measured().medianNs());
    }

    private static String samples(Cell cell) {
        return cell.measured() == null ? "0" : Integer.toString(cell.measured().samples());
    }

    private static String trim(double seconds) {
        return seconds == Math.rint(seconds) ? String.valueOf((long) seconds) : String.valueOf(seconds);
    }
}
