package io.ailb.sim.bench;

import com.fasterxml.jackson.jr.ob.JSON;
import io.ailb.emulator.ClusterHost;
import io.ailb.emulator.RedisEndpoint;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Runs {@code v8-host.js}, our proxy-wasm host for Node's V8, on one plugin configuration and a list of bodies, and
 * parses its tab-separated records. Node runs as a child process; one that prints nothing for {@link Run#hangSeconds} is
 * killed and the run reported as failed at the body it was working on.
 */
final class V8Host {
    static final String SCRIPT = "v8-host.js";
    private static final long VERSION_TIMEOUT_SECONDS = 30;
    /** Put in the line queue by the reader thread when node's output ends. */
    private static final String END_OF_STREAM = "\u0000end of stream";

    /**
     * A request body sent to the host, written to {@code file}, with {@code headers} (name, value) added to the usual
     * request headers.
     */
    record Body(String shape, int bytes, int messages, Path file, List<Map.Entry<String, String>> headers) {
        Body(String shape, int bytes, int messages, Path file) {
            this(shape, bytes, messages, file, List.of());
        }
    }

    /**
     * A plugin configuration under test, on {@code vms} VMs sharing the gateway's shared data (Envoy's workers);
     * requests go to them in turn.
     */
    record Policy(String name, String configJson, int vms) {
        Policy(String name, String configJson) {
            this(name, configJson, 1);
        }
    }

    /** Warm-up and measurement bounds of every body. */
    record Limits(
            double warmUpSeconds,
            int warmUpMin,
            int warmUpMax,
            double measureSeconds,
            int minSamples,
            int maxSamples) {}

    /** What one run needs besides the bodies; {@code redis} is null for a module that needs none. */
    record Run(
            Path wasm,
            Policy policy,
            RedisEndpoint redis,
            boolean flushRedis,
            Limits limits,
            int logLevel,
            boolean trace,
            List<String> nodeFlags,
            double hangSeconds) {}

    /**
     * The result of one body: guest time per request (ns), the whole request's wall time and the node process's CPU
     * time per request, and what the requests got.
     */
    record Cell(
            String shape,
            int bytes,
            int warmUp,
            int samples,
            long medianNs,
            long p90Ns,
            long wallMedianNs,
            long cpuMedianNs,
            int routed,
            int localReplies,
            int stalled,
            int traps,
            int redisCalls,
            int requests,
            int errorsLogged,
            String firstError,
            String status) {}

    /** The last local reply the guest sent during the requests of {@code cells().get(cell)}. */
    record LocalReply(int cell, int status, String body) {}

    /** A guest trap: the VM died and was replaced. */
    record Trap(String shape, int bytes, int requestsOnVm, String export, String message) {}

    /** One request in trace mode: the override and every Redis command word and raw reply, in order. */
    record Trace(
            int request,
            String override,
            boolean routed,
            String localReply,
            List<String> commands,
            List<byte[]> replies) {}

    /** Everything one node process reported; {@code failure} is null when it ended normally. */
    record Report(
            String nodeVersion,
            String v8Version,
            String cpuModel,
            int cpus,
            long moduleBytes,
            double compileMillis,
            String redisVersion,
            List<Cell> cells,
            List<LocalReply> localReplies,
            List<Trap> traps,
            List<Trace> traces,
            String failure,
            String lastBody) {}

    private final String executable;
    private final String version;

    private V8Host(String executable, String version) {
        this.executable = executable;
        this.version = version;
    }

    /** The node executable if it runs ({@code node --version}), else empty. */
    static Optional<V8Host> find(String executable) {
        try {
            Process process = new ProcessBuilder(executable, "--version")
                    .redirectErrorStream(true)
                    .start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!process.waitFor(VERSION_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return Optional.empty();
            }
            return process.exitValue() == 0 ? Optional.of(new V8Host(executable, output)) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    String version() {
        return version;
    }

    /** Copies the host script out of the classpath into {@code dir}. */
    static Path writeScript(Path dir) throws IOException {
        Files.createDirectories(dir);
        Path script = dir.resolve(SCRIPT);
        try (InputStream in = V8Host.class.getResourceAsStream(SCRIPT)) {
            if (in == null) {
                throw new IOException(SCRIPT + " is missing from the classpath");
            }
            Files.copy(in, script, StandardCopyOption.REPLACE_EXISTING);
        }
        return script;
    }

    /**
     * Runs every body through {@code run.policy()} in one node process (one VM, replaced after a trap) and returns
     * what it reported. {@code progress} sees each record line as it arrives.
     */
    Report run(Run run, List<Body> bodies, Path workDir, Consumer<String> progress)
            throws IOException, InterruptedException {
        Path script = writeScript(workDir);
        Path config = workDir.resolve("config-" + run.policy().name() + ".json");
        Files.writeString(config, configJson(run, bodies), StandardCharsets.UTF_8);
        Path stderr = workDir.resolve("stderr-" + run.policy().name() + ".txt");
        List<String> command = new ArrayList<>();
        command.add(executable);
        command.addAll(run.nodeFlags());
        command.add(script.toString());
        command.add(config.toString());
        Process process = new ProcessBuilder(command)
                .directory(workDir.toFile())
                .redirectError(stderr.toFile())
                .start();
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> readLines(process.getInputStream(), lines), "v8-host-reader");
        reader.setDaemon(true);
        reader.start();
        Parser parser = new Parser();
        String failure = null;
        while (true) {
            String line = lines.poll((long) (run.hangSeconds() * 1000), TimeUnit.MILLISECONDS);
            if (line == null) {
                process.destroyForcibly();
                failure = String.format(
                        Locale.ROOT, "no output for %.0f s (a request hung?), node killed", run.hangSeconds());
                break;
            }
            if (line.equals(END_OF_STREAM)) {
                break;
            }
            progress.accept(line);
            parser.accept(line);
        }
        boolean exited = process.waitFor(VERSION_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        if (!exited) {
            process.destroyForcibly();
        }
        if (failure == null && (!exited || process.exitValue() != 0 || !parser.ended)) {
            failure = (exited ? "node exited with " + process.exitValue() : "node did not exit, killed")
                    + (parser.error == null ? "" : ": " + parser.error) + "; stderr: " + tail(stderr);
        }
        return parser.report(failure);
    }

    private static void readLines(InputStream in, BlockingQueue<String> lines) {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
                lines.add(line);
            }
        } catch (IOException e) {
            lines.add("error\treading node's output: " + e.getMessage());
        }
        lines.add(END_OF_STREAM);
    }

    private static String tail(Path file) {
        try {
            List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
            return all.isEmpty() ? "(empty)" : String.join(" | ", all.subList(Math.max(0, all.size() - 5), all.size()));
        } catch (IOException e) {
            return file + " unreadable: " + e.getMessage();
        }
    }

    static String configJson(Run run, List<Body> bodies) throws IOException {
        Map<String, Object> redis = null;
        if (run.redis() != null) {
            redis = new LinkedHashMap<>();
            redis.put("cluster", PolicyCase.REDIS_CLUSTER);
            redis.put("host", run.redis().host());
            redis.put("port", run.redis().port());
            redis.put("username", run.redis().username());
            redis.put("password", run.redis().password());
            redis.put("flush", run.flushRedis());
        }
        List<Map<String, Object>> hosts = new ArrayList<>();
        for (ClusterHost host : PolicyCase.HOSTS) {
            hosts.add(Map.of("address", host.address(), "info", host.infoJson()));
        }
        List<Map<String, Object>> files = new ArrayList<>();
        for (Body body : bodies) {
            List<List<String>> headers = body.headers().stream()
                    .map(header -> List.of(header.getKey(), header.getValue()))
                    .toList();
            files.add(Map.of(
                    "shape", body.shape(), "file", body.file().toAbsolutePath().toString(), "headers", headers));
        }
        Limits limits = run.limits();
        Map<String, Object> config = new LinkedHashMap<>();
        config.put("wasm", run.wasm().toAbsolutePath().toString());
        config.put("logLevel", run.logLevel());
        config.put("redis", redis);
        config.put("route", PolicyCase.ROUTE);
        config.put("cluster", PolicyCase.CLUSTER);
        config.put("authority", PolicyCase.AUTHORITY);
        config.put("path", "/v1/chat/completions");
        config.put("contentType", PolicyCase.CONTENT_TYPE);
        config.put("hosts", hosts);
        config.put(
                "policy",
                Map.of("name", run.policy().name(), "config", run.policy().configJson()));
        config.put("vms", run.policy().vms());
        config.put("bodies", files);
        config.put(
                "warmup",
                Map.of("seconds", limits.warmUpSeconds(), "min", limits.warmUpMin(), "max", limits.warmUpMax()));
        config.put(
                "measure",
                Map.of("seconds", limits.measureSeconds(), "min", limits.minSamples(), "max", limits.maxSamples()));
        config.put("trace", run.trace());
        return JSON.std.asString(config);
    }

    /** A {@code cell} record line. */
    static Cell cell(String line) {
        String[] f = line.split("\t", -1);
        return new Cell(
                f[1],
                Integer.parseInt(f[2]),
                Integer.parseInt(f[3]),
                Integer.parseInt(f[4]),
                Long.parseLong(f[5]),
                Long.parseLong(f[6]),
                Long.parseLong(f[7]),
                Long.parseLong(f[8]),
                Integer.parseInt(f[9]),
                Integer.parseInt(f[10]),
                Integer.parseInt(f[11]),
                Integer.parseInt(f[12]),
                Integer.parseInt(f[13]),
                Integer.parseInt(f[14]),
                Integer.parseInt(f[15]),
                f[16],
                f[17]);
    }

    /** Turns the record lines into a {@link Report}. */
    private static final class Parser {
        String nodeVersion = "?";
        String v8Version = "?";
        String cpuModel = "?";
        int cpus;
        long moduleBytes = -1;
        double compileMillis = -1;
        String redisVersion = "?";
        String lastBody;
        String error;
        boolean ended;
        final List<Cell> cells = new ArrayList<>();
        final List<LocalReply> localReplies = new ArrayList<>();
        final List<Trap> traps = new ArrayList<>();
        final List<Trace> traces = new ArrayList<>();

        void accept(String line) {
            String[] f = line.split("\t", -1);
            switch (f[0]) {
                case "engine" -> {
                    nodeVersion = f[1];
                    v8Version = f[2];
                    cpuModel = f[3];
                    cpus = Integer.parseInt(f[4]);
                }
                case "module" -> {
                    moduleBytes = Long.parseLong(f[1]);
                    compileMillis = Double.parseDouble(f[2]);
                }
                case "redis-version" -> redisVersion = f[1];
                case "begin" -> lastBody = f[1] + " " + f[2] + " bytes";
                case "trap" -> traps.add(new Trap(f[1], Integer.parseInt(f[2]), Integer.parseInt(f[3]), f[4], f[5]));
                case "trace" -> traces.add(new Trace(
                        Integer.parseInt(f[1]),
                        f[2],
                        f[3].equals("1"),
                        f[4],
                        f[5].equals("-") ? List.of() : List.of(f[5].split(",")),
                        f[6].equals("-")
                                ? List.of()
                                : Arrays.stream(f[6].split(","))
                                        .map(Base64.getDecoder()::decode)
                                        .toList()));
                    // Printed right before the cell it belongs to.
                case "reply" -> localReplies.add(new LocalReply(cells.size(), Integer.parseInt(f[3]), f[4]));
                case "cell" -> cells.add(cell(line));
                case "error" -> error = f[1];
                case "end" -> ended = true;
                default -> {
                    // Unknown records are progress output only.
                }
            }
        }

        Report report(String failure) {
            return new Report(
                    nodeVersion,
                    v8Version,
                    cpuModel,
                    cpus,
                    moduleBytes,
                    compileMillis,
                    redisVersion,
                    List.copyOf(cells),
                    List.copyOf(localReplies),
                    List.copyOf(traps),
                    List.copyOf(traces),
                    failure,
                    lastBody);
        }
    }
}
