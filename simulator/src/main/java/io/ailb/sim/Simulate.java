package io.ailb.sim;

import com.fasterxml.jackson.jr.ob.JSON;
import io.ailb.sim.backend.BackendConfig;
import io.ailb.sim.bounds.HitRateBounds;
import io.ailb.sim.bounds.TtftLowerBound;
import io.ailb.sim.engine.Simulation;
import io.ailb.sim.engine.Simulation.HealthChange;
import io.ailb.sim.model.SimRequest;
import io.ailb.sim.report.BenchmarksDoc;
import io.ailb.sim.report.ResultTable;
import io.ailb.sim.report.RunResult;
import io.ailb.sim.report.SweepTable;
import io.ailb.sim.report.plot.Plots;
import io.ailb.sim.router.PluginRouter;
import io.ailb.sim.router.Router;
import io.ailb.sim.router.Routers;
import io.ailb.sim.workload.ChatWorkload;
import io.ailb.sim.workload.MooncakeTrace;
import io.ailb.sim.workload.UserLog;
import io.ailb.sim.workload.Workload;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The routing simulator's command line: replays a workload through each router (the plugin's .wasm on N gateway VMs
 * sharing one Redis, or a baseline) in front of M simulated backends, and prints one comparison table.
 * {@code --help} lists the flags.
 */
public final class Simulate {
    /** The standard comparison: every policy of the plugin next to the baselines and the reference routers. */
    static final String DEFAULT_ROUTERS = "plugin:prefix_cache,plugin:cache_aware,plugin:global_least_request,"
            + "plugin:least_busy,random,round_robin,least_inflight,sglang_cache_aware,sglang_cache_aware_2025,"
            + "smg_cache_aware,llmd,llmd_precise,dynamo,dynamo_kv_events,greedy_ttft,lookahead_ttft";

    static final String USAGE =
            """
            Usage: Simulate [options]
              --workload trace|chat|log     what to replay (default trace)
              --trace FILE                  Mooncake trace (default ../shared/traces/mooncake_conversation_trace.jsonl)
              --log FILE                    your own log (JSONL: arrival_ms, body, output_tokens)
              --preset higress-article      chat: 60 sessions x 5 turns, 200 in / 800 out tokens, concurrency 20,
                                            3 backends (Higress's prefix_cache article)
              --routers LIST                comma-separated; plugin:POLICY, plugin:@config.json, plugin:{json},
                                            random, round_robin, and the baselines' names
                                            (default: the plugin's prefix_cache, cache_aware,
                                            global_least_request, least_busy, then random,
                                            round_robin, least_inflight, sglang_cache_aware,
                                            sglang_cache_aware_2025, smg_cache_aware, llmd,
                                            llmd_precise, dynamo, dynamo_kv_events, greedy_ttft,
                                            lookahead_ttft)
              --backends M                  simulated instances (default 8; preset 3)
              --gateways N                  gateways (one plugin VM each, shared Redis; default 1)
              --requests-per-vm K           replace a gateway's VM after K requests; 0 = never (default)
              --capacity-tokens T           KV cache per backend in tokens (default 1000000)
              --speedup X                   divide arrival times by X (trace, log; default 1)
              --limit K                     first K requests (trace, log) or sessions (chat); 0 = all (default)
              --seed S                      seed of workloads and random choices (default 1)
              --json FILE                   write the results as JSON
              --plots DIR                   write PNG plots (when the plot package is present)
              --doc FILE --section NAME     write the table and this command line into a section of FILE
              --sweep M1,M2,...             run every router at the arrival rate times each multiplier (trace,
                                            log, or chat with --rate) and report TTFT mean/p99 per rate; with
                                            --plots, sweep-ttft-mean.png and sweep-ttft-p99.png
              --progress                    progress bar on stderr even when it is not a terminal
              --wasm FILE                   the plugin (default: the ai-load-balancer.wasm this build made)
              --guest-timeout-ms X          a plugin call running longer (wall time) is stopped, its VM replaced
                                            and the request routed by the default LB (default 20000; 0 = none)
            chat workload:
              --sessions N --turns N --groups N --system-tokens N --input-tokens N --input-stddev X
              --output-tokens N --output-stddev X --concurrency N (closed loop) | --rate X (sessions/s, open loop)
              --think-ms X
            backends:
              --backend-model vllm|serial|parallel   vllm (default): scheduler steps, decodes first, then FCFS
                                            prefill chunks up to --step-budget tokens (8192); a step takes
                                            (itl-ms - prefill-us-per-token) + tokens x prefill-us-per-token;
                                            generated blocks cached. serial / parallel: the former models
                                            (--parallel-prefill = --backend-model parallel)
              --prefill-us-per-token X (62.5) --itl-ms X (12) --max-num-seqs N (256)
              --metrics-staleness-ms X (100); serial/parallel only: --overhead-ms X (30) --load-factor X (2.0)
              --fail B@FROM-TO              backend B unhealthy from FROM to TO ms (repeatable; TO may be omitted)
              --sample-ms X                 load sample interval (default: the run's length / 200, at least 100)
            """;

    private Simulate() {}

    public static void main(String[] args) throws Exception {
        int code = run(args, System.out, System.err);
        if (code != 0) {
            System.exit(code);
        }
    }

    /** Runs the CLI; returns the exit code. */
    public static int run(String[] args, PrintStream out, PrintStream err) throws IOException {
        Map<String, String> opts = new LinkedHashMap<>();
        List<String> failures = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--help") || a.equals("-h")) {
                out.print(USAGE);
                return 0;
            }
            if (!a.startsWith("--")) {
                err.println("unexpected argument: " + a + "\n" + USAGE);
                return 2;
            }
            String key = a.substring(2);
            String value;
            int eq = key.indexOf('=');
            if (eq >= 0) {
                value = key.substring(eq + 1);
                key = key.substring(0, eq);
            } else if (key.equals("progress") || key.equals("parallel-prefill")) {
                value = "true";
            } else if (i + 1 < args.length) {
                value = args[++i];
            } else {
                err.println("missing value for --" + key);
                return 2;
            }
            if (key.equals("fail")) {
                failures.add(value);
            } else {
                opts.put(key, value);
            }
        }
        try {
            return execute(opts, failures, String.join(" ", quoteAll(args)), out, err);
        } catch (IllegalArgumentException e) {
            err.println("error: " + e.getMessage());
            return 2;
        }
    }

    private static List<String> quoteAll(String[] args) {
        List<String> quoted = new ArrayList<>();
        for (String a : args) {
            quoted.add(a.matches("[A-Za-z0-9_@%+=:,./-]+") ? a : "'" + a.replace("'", "'\\''") + "'");
        }
        return quoted;
    }

    private static final List<String> KNOWN = List.of(
            "workload",
            "trace",
            "log",
            "preset",
            "routers",
            "backends",
            "gateways",
            "requests-per-vm",
            "capacity-tokens",
            "speedup",
            "limit",
            "seed",
            "json",
            "plots",
            "doc",
            "section",
            "progress",
            "wasm",
            "sessions",
            "turns",
            "groups",
            "system-tokens",
            "input-tokens",
            "input-stddev",
            "output-tokens",
            "output-stddev",
            "concurrency",
            "rate",
            "think-ms",
            "overhead-ms",
            "prefill-us-per-token",
            "itl-ms",
            "load-factor",
            "max-num-seqs",
            "metrics-staleness-ms",
            "parallel-prefill",
            "backend-model",
            "step-budget",
            "sweep",
            "sample-ms",
            "guest-timeout-ms");

    /** What the bounds say about one workload under one backend configuration. */
    private record Limits(HitRateBounds.Result hits, TtftLowerBound.Result ttft) {
        static Limits of(Workload w, int backends, BackendConfig backend) {
            return new Limits(
                    HitRateBounds.compute(w.requests(), backends, backend.capacityTokens(), backend.cachesOutput()),
                    TtftLowerBound.compute(w.requests(), backend));
        }

        Map<String, Double> hitRates() {
            Map<String, Double> bounds = new LinkedHashMap<>();
            bounds.put("infinite cache", hits.infiniteHitRate());
            bounds.put("pooled LRU", hits.pooledLruHitRate());
            return bounds;
        }

        String line() {
            return String.format(
                    Locale.ROOT,
                    "hit-rate bounds: infinite cache %.1f%%, pooled LRU %.1f%%; TTFT lower "
                            + "bound (alone on an idle instance holding the infinite-cache hit): mean %s, p50 %s, p99 %s ms",
                    100 * hits.infiniteHitRate(),
                    100 * hits.pooledLruHitRate(),
                    ResultTable.ms(ttft.meanMs()),
                    ResultTable.ms(ttft.p50Ms()),
                    ResultTable.ms(ttft.p99Ms()));
        }

        Map<String, Object> toMap() {
            Map<String, Object> map = new LinkedHashMap<>(hitRates());
            map.put(
                    "ttft_lower_bound_ms",
                    Map.of("mean", ttft.meanMs(), "p50", ttft.p50Ms(), "p90", ttft.p90Ms(), "p99", ttft.p99Ms()));
            return map;
        }
    }

    private static int execute(
            Map<String, String> o, List<String> failures, String commandLine, PrintStream out, PrintStream err)
            throws IOException {
        for (String key : o.keySet()) {
            if (!KNOWN.contains(key)) {
                throw new IllegalArgumentException("unknown option --" + key);
            }
        }
        String preset = o.get("preset");
        if (preset != null && !preset.equals("higress-article")) {
            throw new IllegalArgumentException("unknown preset " + preset + " (known: higress-article)");
        }
        long seed = Long.parseLong(o.getOrDefault("seed", "1"));
        int backends = Integer.parseInt(o.getOrDefault("backends", preset != null ? "3" : "8"));
        BackendConfig backend = backendConfig(o);
        List<HealthChange> health = new ArrayList<>();
        for (String f : failures) {
            health.addAll(parseFailure(f));
        }
        int gateways = Integer.parseInt(o.getOrDefault("gateways", "1"));
        int perVm = Integer.parseInt(o.getOrDefault("requests-per-vm", "0"));
        Path wasm = o.containsKey("wasm") ? Path.of(o.get("wasm")) : null;
        String routerList = o.getOrDefault("routers", DEFAULT_ROUTERS);
        boolean progressBar = o.containsKey("progress") || System.console() != null;
        long guestTimeout = Long.parseLong(
                o.getOrDefault("guest-timeout-ms", Long.toString(PluginRouter.DEFAULT_GUEST_TIMEOUT_MS)));
        List<Double> multipliers = o.containsKey("sweep") ? parseSweep(o.get("sweep")) : List.of(1.0);

        List<SweepTable.Point> points = new ArrayList<>();
        List<Workload> workloads = new ArrayList<>();
        List<Simulation.Settings> settingsPerPoint = new ArrayList<>();
        try (Routers.PluginEnvironment env = new Routers.PluginEnvironment(wasm, gateways, perVm, guestTimeout)) {
            List<Supplier<Router>> routers = new ArrayList<>();
            for (String spec : Routers.split(routerList)) {
                routers.add(Routers.resolve(spec, seed, env));
            }
            for (double m : multipliers) {
                Workload workload = workload(o, preset, seed, m, o.containsKey("sweep"));
                Simulation.Settings settings =
                        new Simulation.Settings(backends, backend, seed, sampleMs(o, workload), health);
                out.println(describe(workload, settings, gateways, perVm));
                Simulation.Progress progress = progressBar ? new ProgressBar(err) : null;
                List<RunResult> results = new ArrayList<>();
                for (Supplier<Router> factory : routers) {
                    results.add(Simulation.run(workload, factory.get(), settings, progress));
                    if (progressBar) {
                        err.print("\r\033[K");
                        err.flush();
                    }
                }
                points.add(new SweepTable.Point("x" + trim(m), offeredRate(workload), results));
                workloads.add(workload);
                settingsPerPoint.add(settings);
            }
        }
        Limits limits = Limits.of(workloads.get(0), backends, backend);
        if (o.containsKey("sweep")) {
            reportSweep(o, commandLine, points, workloads, settingsPerPoint, limits, gateways, perVm, out, err);
        } else {
            report(
                    o,
                    commandLine,
                    points.get(0).results(),
                    workloads.get(0),
                    settingsPerPoint.get(0),
                    limits,
                    gateways,
                    perVm,
                    out,
                    err);
        }
        return 0;
    }

    private static BackendConfig backendConfig(Map<String, String> o) {
        BackendConfig d = BackendConfig.DEFAULT;
        BackendConfig.Model model = o.containsKey("backend-model")
                ? BackendConfig.Model.fromCli(o.get("backend-model"))
                : o.containsKey("parallel-prefill") ? BackendConfig.Model.PARALLEL : d.model();
        if (o.containsKey("parallel-prefill") && model != BackendConfig.Model.PARALLEL) {
            throw new IllegalArgumentException(
                    "--parallel-prefill is --backend-model parallel, not " + model.cliName());
        }
        return new BackendConfig(
                Long.parseLong(o.getOrDefault("capacity-tokens", Long.toString(d.capacityTokens()))),
                dbl(o, "overhead-ms", d.overheadMs()),
                dbl(o, "prefill-us-per-token", d.prefillUsPerToken()),
                dbl(o, "itl-ms", d.itlMs()),
                dbl(o, "load-factor", d.timeFactorUnderLoad()),
                Integer.parseInt(o.getOrDefault("max-num-seqs", Integer.toString(d.maxNumSeqs()))),
                dbl(o, "metrics-staleness-ms", d.metricsStalenessMs()),
                model,
                Integer.parseInt(o.getOrDefault("step-budget", Integer.toString(d.stepBudgetTokens()))));
    }

    /** The workload with its arrival rate times {@code multiplier}; a sweep needs arrivals it can speed up. */
    private static Workload workload(Map<String, String> o, String preset, long seed, double multiplier, boolean sweep)
            throws IOException {
        String kind = o.getOrDefault("workload", preset != null ? "chat" : "trace");
        int limit = Integer.parseInt(o.getOrDefault("limit", "0"));
        double speedup = Double.parseDouble(o.getOrDefault("speedup", "1")) * multiplier;
        return switch (kind) {
            case "trace" -> MooncakeTrace.load(
                    o.containsKey("trace") ? Path.of(o.get("trace")) : MooncakeTrace.defaultTrace(), speedup, limit);
            case "log" -> {
                if (!o.containsKey("log")) {
                    throw new IllegalArgumentException("--workload log needs --log FILE");
                }
                yield UserLog.load(Path.of(o.get("log")), speedup, limit);
            }
            case "chat" -> {
                ChatWorkload.Spec spec = chatSpec(o, preset != null);
                if (sweep && spec.concurrency() > 0) {
                    throw new IllegalArgumentException("--sweep scales arrival rates: give the chat workload --rate"
                            + " (sessions/s, open loop) instead of a concurrency");
                }
                yield ChatWorkload.generate(spec.withSessionsPerSecond(spec.sessionsPerSecond() * multiplier), seed)
                        .limit(limit);
            }
            default -> throw new IllegalArgumentException("unknown workload " + kind + " (trace, chat or log)");
        };
    }

    static List<Double> parseSweep(String list) {
        List<Double> multipliers = new ArrayList<>();
        for (String part : list.split(",")) {
            double m = Double.parseDouble(part.strip());
            if (!(m > 0)) {
                throw new IllegalArgumentException("--sweep multipliers must be positive: " + list);
            }
            multipliers.add(m);
        }
        if (multipliers.isEmpty()) {
            throw new IllegalArgumentException("--sweep needs at least one multiplier");
        }
        return multipliers;
    }

    private static double sampleMs(Map<String, String> o, Workload workload) {
        double span = workload.closedLoop()
                ? 0
                : workload.requests().isEmpty()
                        ? 0
                        : workload.requests()
                                .get(workload.requests().size() - 1)
                                .arrivalMs();
        return o.containsKey("sample-ms") ? Double.parseDouble(o.get("sample-ms")) : Math.max(100, span / 200);
    }

    /** Requests per second over the arrival span (0 for a closed loop, whose rate follows the backends). */
    static double offeredRate(Workload w) {
        List<SimRequest> r = w.requests();
        if (w.closedLoop() || r.size() < 2) {
            return 0;
        }
        double span = r.get(r.size() - 1).arrivalMs() - r.get(0).arrivalMs();
        return span <= 0 ? 0 : (r.size() - 1) * 1000.0 / span;
    }

    private static void report(
            Map<String, String> o,
            String commandLine,
            List<RunResult> results,
            Workload workload,
            Simulation.Settings settings,
            Limits limits,
            int gateways,
            int perVm,
            PrintStream out,
            PrintStream err)
            throws IOException {
        double lowerBound = limits.ttft().meanMs();
        out.print(ResultTable.text(results, lowerBound));
        out.println(limits.line());
        warnings(results, out);
        if (o.containsKey("json")) {
            Map<String, Object> doc = jsonHeader(commandLine, workload, settings, gateways);
            doc.put("bounds", limits.toMap());
            List<Object> list = new ArrayList<>();
            results.forEach(r -> list.add(r.toMap()));
            doc.put("results", list);
            writeJson(Path.of(o.get("json")), doc);
        }
        if (o.containsKey("plots")) {
            Path dir = Path.of(o.get("plots"));
            Files.createDirectories(dir);
            for (Path png : Plots.writeAll(dir, results, limits.hitRates())) {
                err.println("plot: " + png);
            }
        }
        if (o.containsKey("doc")) {
            String section = o.getOrDefault("section", "simulator");
            StringBuilder md = new StringBuilder();
            md.append("### Routing simulator: ").append(workload.name()).append("\n\n");
            md.append("`mvn -q -pl simulator exec:java -Dexec.args=\"")
                    .append(commandLine)
                    .append("\"`\n\n");
            md.append(describe(workload, settings, gateways, perVm)).append("\n\n");
            md.append(ResultTable.markdown(results, lowerBound));
            md.append('\n').append(capitalized(limits.line())).append(". ×LB = TTFT mean / lower-bound mean.\n");
            md.append("\nTimes in simulated ms; decision µs is wall time of the guest calls on ")
                    .append(machine())
                    .append(" (including the synchronous Redis round trips).\n");
            BenchmarksDoc.replaceSection(Path.of(o.get("doc")), section, md.toString());
        }
    }

    private static void reportSweep(
            Map<String, String> o,
            String commandLine,
            List<SweepTable.Point> points,
            List<Workload> workloads,
            List<Simulation.Settings> settings,
            Limits limits,
            int gateways,
            int perVm,
            PrintStream out,
            PrintStream err)
            throws IOException {
        SweepTable.Bounds bounds = new SweepTable.Bounds(
                limits.hits().infiniteHitRate(),
                limits.hits().pooledLruHitRate(),
                limits.ttft().meanMs(),
                limits.ttft().p99Ms());
        String rates = rateLine(points);
        out.println(rates);
        out.print(SweepTable.markdown(points, bounds));
        out.println(limits.line());
        List<String> comparisons = SweepTable.comparisons(points);
        comparisons.forEach(out::println);
        for (SweepTable.Point p : points) {
            warnings(p.results(), out);
        }
        if (o.containsKey("json")) {
            Map<String, Object> doc = jsonHeader(commandLine, workloads.get(0), settings.get(0), gateways);
            doc.put("bounds", limits.toMap());
            List<Object> list = new ArrayList<>();
            for (int i = 0; i < points.size(); i++) {
                Map<String, Object> point = new LinkedHashMap<>();
                point.put("rate", points.get(i).label());
                point.put("workload", workloads.get(i).name());
                point.put("requests_per_second", points.get(i).requestsPerSecond());
                List<Object> results = new ArrayList<>();
                points.get(i).results().forEach(r -> results.add(r.toMap()));
                point.put("results", results);
                list.add(point);
            }
            doc.put("sweep", list);
            writeJson(Path.of(o.get("json")), doc);
        }
        List<String> pngs = new ArrayList<>();
        if (o.containsKey("plots")) {
            Path dir = Path.of(o.get("plots"));
            Files.createDirectories(dir);
            Map<String, double[]> x = new LinkedHashMap<>();
            double[] rate = points.stream()
                    .mapToDouble(SweepTable.Point::requestsPerSecond)
                    .toArray();
            for (String router : SweepTable.routers(points)) {
                x.put(router, rate);
            }
            String name = workloads.get(0).name().replaceAll(" x[0-9.]+$", "");
            for (boolean p99 : new boolean[] {false, true}) {
                String statistic = p99 ? "p99" : "mean";
                Path png = dir.resolve("sweep-ttft-" + statistic + ".png");
                Plots.linesOverRate(
                        png,
                        "TTFT " + statistic + " vs request rate — " + name,
                        "TTFT " + statistic + " (ms)",
                        x,
                        SweepTable.series(points, p99),
                        Map.of(
                                "TTFT lower bound (" + statistic + ")",
                                p99 ? limits.ttft().p99Ms() : limits.ttft().meanMs()));
                err.println("plot: " + png);
                pngs.add(png.toString());
            }
        }
        if (o.containsKey("doc")) {
            String section = o.getOrDefault("section", "simulator-sweep");
            StringBuilder md = new StringBuilder();
            md.append("### Routing simulator sweep: ")
                    .append(workloads.get(0).name().replaceAll(" x[0-9.]+$", ""))
                    .append("\n\n");
            md.append("`mvn -q -pl simulator exec:java -Dexec.args=\"")
                    .append(commandLine)
                    .append("\"`\n\n");
            md.append(describe(workloads.get(0), settings.get(0), gateways, perVm))
                    .append("\n\n");
            md.append(rates).append("\n\n");
            md.append(SweepTable.markdown(points, bounds));
            md.append('\n').append(capitalized(limits.line())).append(" (the *bound* row).\n");
            md.append("\nBest plugin policy vs best anchor (SGLang, SMG, llm-d, Dynamo) per rate:\n\n");
            comparisons.forEach(c -> md.append("- ").append(c).append('\n'));
            if (!pngs.isEmpty()) {
                md.append("\nPlots: ");
                for (int i = 0; i < pngs.size(); i++) {
                    md.append(i == 0 ? "" : ", ")
                            .append('`')
                            .append(pngs.get(i))
                            .append('`');
                }
                md.append(".\n");
            }
            md.append("\nTimes in simulated ms, on ").append(machine()).append(".\n");
            BenchmarksDoc.replaceSection(Path.of(o.get("doc")), section, md.toString());
        }
    }

    private static String rateLine(List<SweepTable.Point> points) {
        StringBuilder s = new StringBuilder("Rates: ");
        for (int i = 0; i < points.size(); i++) {
            s.append(i == 0 ? "" : ", ")
                    .append(points.get(i).label())
                    .append(" = ")
                    .append(String.format(Locale.ROOT, "%.2f", points.get(i).requestsPerSecond()))
                    .append(" req/s");
        }
        return s.toString();
    }

    private static void warnings(List<RunResult> results, PrintStream out) {
        for (RunResult r : results) {
            if (r.plugin() != null && (r.plugin().vmTraps() > 0 || r.plugin().rejects() > 0)) {
                out.println(r.router() + ": " + r.plugin().vmTraps() + " VM traps/timeouts, "
                        + r.plugin().rejects() + " local replies (routed by the default LB)");
            }
            if (r.completed() < r.requests()) {
                out.println(r.router() + ": only " + r.completed() + " of " + r.requests() + " requests finished");
            }
        }
    }

    private static Map<String, Object> jsonHeader(
            String commandLine, Workload workload, Simulation.Settings s, int gateways) {
        BackendConfig backend = s.backend();
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("command", commandLine);
        doc.put("workload", workload.name());
        doc.put("requests", workload.requests().size());
        doc.put("backends", s.backends());
        doc.put("gateways", gateways);
        Map<String, Object> b = new LinkedHashMap<>();
        b.put("model", backend.model().cliName());
        b.put("capacity_tokens", backend.capacityTokens());
        b.put("overhead_ms", backend.overheadMs());
        b.put("prefill_us_per_token", backend.prefillUsPerToken());
        b.put("itl_ms", backend.itlMs());
        b.put("step_budget_tokens", backend.stepBudgetTokens());
        b.put("step_fixed_ms", backend.stepFixedMs());
        b.put("time_factor_under_load", backend.timeFactorUnderLoad());
        b.put("max_num_seqs", backend.maxNumSeqs());
        b.put("metrics_staleness_ms", backend.metricsStalenessMs());
        doc.put("backend", b);
        return doc;
    }

    private static void writeJson(Path json, Map<String, Object> doc) throws IOException {
        if (json.toAbsolutePath().getParent() != null) {
            Files.createDirectories(json.toAbsolutePath().getParent());
        }
        Files.writeString(
                json, JSON.std.with(JSON.Feature.PRETTY_PRINT_OUTPUT).asString(doc) + "\n", StandardCharsets.UTF_8);
    }

    private static String trim(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }

    private static String capitalized(String s) {
        return s.isEmpty() ? s : Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }

    private static String machine() {
        return System.getProperty("os.name") + "/" + System.getProperty("os.arch") + ", "
                + Runtime.getRuntime().availableProcessors() + " cores, Java " + System.getProperty("java.version");
    }

    static String describe(Workload w, Simulation.Settings s, int gateways, int perVm) {
        BackendConfig b = s.backend();
        String model =
                switch (b.model()) {
                    case VLLM -> String.format(
                            Locale.ROOT,
                            "vLLM steps: budget %,d tokens, %.2f ms + %.2f µs/token per step, "
                                    + "%d seqs, output blocks cached",
                            b.stepBudgetTokens(),
                            b.stepFixedMs(),
                            b.prefillUsPerToken(),
                            b.maxNumSeqs());
                    case SERIAL, PARALLEL -> String.format(
                            Locale.ROOT,
                            "%s prefill: overhead %.1f ms, %.2f µs/token, ITL " + "%.1f ms ×%.1f at %d seqs",
                            b.model().cliName(),
                            b.overheadMs(),
                            b.prefillUsPerToken(),
                            b.itlMs(),
                            b.timeFactorUnderLoad(),
                            b.maxNumSeqs());
                };
        return String.format(
                Locale.ROOT,
                "%s: %d requests%s; %d backends (KV %,d tokens each, %s); plugin on %d " + "gateway(s)%s; seed %d",
                w.name(),
                w.requests().size(),
                w.closedLoop() ? " in " + w.sessions().size() + " sessions" : "",
                s.backends(),
                b.capacityTokens(),
                model,
                gateways,
                perVm > 0 ? ", fresh VM every " + perVm + " requests" : "",
                s.seed());
    }

    private static double dbl(Map<String, String> o, String key, double fallback) {
        return o.containsKey(key) ? Double.parseDouble(o.get(key)) : fallback;
    }

    private static ChatWorkload.Spec chatSpec(Map<String, String> o, boolean article) {
        ChatWorkload.Spec base = article
                ? ChatWorkload.HIGRESS_ARTICLE
                : new ChatWorkload.Spec(4, 60, 5, 1000, 200, 50, 300, 100, 20, 0, 0, 16);
        int concurrency = Integer.parseInt(o.getOrDefault("concurrency", Integer.toString(base.concurrency())));
        double rate = dbl(o, "rate", base.sessionsPerSecond());
        if (o.containsKey("rate") && !o.containsKey("concurrency")) {
            concurrency = 0;
        }
        return new ChatWorkload.Spec(
                Integer.parseInt(o.getOrDefault("groups", Integer.toString(base.groups()))),
                Integer.parseInt(o.getOrDefault("sessions", Integer.toString(base.sessions()))),
                Integer.parseInt(o.getOrDefault("turns", Integer.toString(base.turns()))),
                Integer.parseInt(o.getOrDefault("system-tokens", Integer.toString(base.systemTokens()))),
                dbl(o, "input-tokens", base.inputMean()),
                dbl(o, "input-stddev", base.inputStddev()),
                dbl(o, "output-tokens", base.outputMean()),
                dbl(o, "output-stddev", base.outputStddev()),
                concurrency,
                rate,
                dbl(o, "think-ms", base.thinkMs()),
                base.blockTokens());
    }

    /** {@code B@FROM-TO} or {@code B@FROM}: backend B is unhealthy from FROM ms (to TO ms). */
    static List<HealthChange> parseFailure(String spec) {
        int at = spec.indexOf('@');
        if (at < 0) {
            throw new IllegalArgumentException("--fail wants BACKEND@FROM-TO (ms), got " + spec);
        }
        int backend = Integer.parseInt(spec.substring(0, at));
        String range = spec.substring(at + 1);
        int dash = range.indexOf('-');
        List<HealthChange> changes = new ArrayList<>();
        double from = Double.parseDouble(dash < 0 ? range : range.substring(0, dash));
        changes.add(new HealthChange(from, backend, false));
        if (dash >= 0 && dash + 1 < range.length()) {
            changes.add(new HealthChange(Double.parseDouble(range.substring(dash + 1)), backend, true));
        }
        return changes;
    }

    /** {@code router [#####.....] 1234/5678} on one line of stderr. */
    static final class ProgressBar implements Simulation.Progress {
        private final PrintStream err;
        private long lastPrinted = -1;

        ProgressBar(PrintStream err) {
            this.err = err;
        }

        @Override
        public void update(String router, long done, long total) {
            long permille = total == 0 ? 1000 : done * 1000 / total;
            if (permille == lastPrinted) {
                return;
            }
            lastPrinted = permille;
            int filled = (int) (permille * 30 / 1000);
            err.print("\r" + router + " [" + "#".repeat(filled) + ".".repeat(30 - filled) + "] " + done + "/" + total);
            err.flush();
        }
    }
}
