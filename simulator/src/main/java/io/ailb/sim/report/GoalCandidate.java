package io.ailb.sim.report;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The goal's scoreboard ({@link GoalStatus}) for a candidate: re-runs the recommended policy's row of every section the
 * scoreboard reads, with a candidate .wasm or router spec in its place, puts the new rows into those sections (the
 * anchors' and the bound's rows stay as documented: their runs do not depend on the plugin), and prints the table the
 * scoreboard would then write, and the cells whose verdict moved. Each section runs its own documented command, with
 * only the routers changed, in a process of its own. A variant is judged by the goal's table this way, not by the few
 * cells it was tried on.
 *
 * <p>{@code mvn -q -o -pl simulator compile exec:java@goal-candidate -Dexec.args="docs/benchmarks.md --wasm X.wasm
 * [--router SPEC] [--parallel N]"}
 */
public final class GoalCandidate {
    private static final Pattern COMMAND = Pattern.compile("`mvn -q -pl simulator exec:java -Dexec.args=\"([^\"]*)\"`");
    /** Options of a documented command that name where it writes, or its routers: dropped with their values. */
    private static final List<String> DROPPED = List.of("--routers", "--doc", "--section", "--plots");

    /** A section the scoreboard reads: its name, body, documented simulator arguments and documented cells. */
    record Section(String name, String body, String args, List<GoalStatus.Cell> documented) {}

    /** One section's re-run: the policy row it printed, or why it has none. */
    record Rerun(Section section, String row, String failure) {}

    private GoalCandidate() {}

    /** The sections with cells on the scoreboard and a documented command, in document order. */
    static List<Section> goalSections(String doc) {
        List<Section> sections = new ArrayList<>();
        Matcher m = GoalStatus.SECTION.matcher(doc);
        while (m.find()) {
            Matcher command = COMMAND.matcher(m.group(2));
            List<GoalStatus.Cell> cells = GoalStatus.cellsOf(m.group(1), m.group(2));
            if (!cells.isEmpty() && command.find()) {
                sections.add(new Section(m.group(1), m.group(2), command.group(1), cells));
            }
        }
        return sections;
    }

    /** The documented arguments with the candidate as the only router, writing nowhere but stdout. */
    static List<String> candidateArgs(String documented, String router, Path wasm) {
        List<String> tokens = Arrays.asList(documented.trim().split("\\s+"));
        List<String> args = new ArrayList<>();
        for (int i = 0; i < tokens.size(); i++) {
            if (DROPPED.contains(tokens.get(i))) {
                i++;
            } else {
                args.add(tokens.get(i));
            }
        }
        args.add("--routers");
        args.add(router);
        if (wasm != null) {
            args.add("--wasm");
            args.add(wasm.toString());
        }
        return args;
    }

    /** The first row of the printed sweep table that is not the bound: the only router's. */
    static String policyRow(String printed) {
        boolean inTable = false;
        for (String line : printed.split("\n")) {
            if (line.startsWith("| router |")) {
                inTable = true;
            } else if (inTable && line.startsWith("| ") && !line.startsWith("| *bound*")) {
                return line;
            }
        }
        return null;
    }

    /**
     * The last printed line that is not a stack frame: the exception's message (a missing input names its file), where
     * the last line would be the outermost frame.
     */
    static String failureLine(String printed) {
        String[] lines = printed.strip().split("\n");
        for (int i = lines.length - 1; i >= 0; i--) {
            String line = lines[i].strip();
            if (!line.startsWith("at ") && !line.startsWith("... ")) {
                return line;
            }
        }
        return "";
    }

    /** {@code body} with its policy row's measurements replaced by {@code row}'s (which names the candidate). */
    static String withPolicyRow(String body, String row) {
        String measured = row.substring(row.indexOf('|', 1));
        StringBuilder out = new StringBuilder();
        for (String line : body.split("\n", -1)) {
            if (out.length() > 0) {
                out.append('\n');
            }
            out.append(
                    line.startsWith("| " + GoalStatus.POLICY + " |")
                            ? "| " + GoalStatus.POLICY + " " + measured
                            : line);
        }
        return out.toString();
    }

    /**
     * The simulator's class path: under {@code exec:java} the project's, held by the class loader Maven made (the
     * JVM's own is Maven's launcher); else the JVM's.
     */
    private static String classPath() {
        if (GoalCandidate.class.getClassLoader() instanceof URLClassLoader loader) {
            List<String> entries = new ArrayList<>();
            for (URL url : loader.getURLs()) {
                try {
                    entries.add(Path.of(url.toURI()).toString());
                } catch (URISyntaxException e) {
                    throw new IllegalStateException("class path entry " + url, e);
                }
            }
            return String.join(File.pathSeparator, entries);
        }
        return System.getProperty("java.class.path");
    }

    private static Rerun rerun(Section section, String router, Path wasm) {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx3g",
                "-cp",
                classPath(),
                "io.ailb.sim.Simulate"));
        command.addAll(candidateArgs(section.args(), router, wasm));
        try {
            Process process =
                    new ProcessBuilder(command).redirectErrorStream(true).start();
            String printed = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int code = process.waitFor();
            String row = code == 0 ? policyRow(printed) : null;
            if (row == null) {
                return new Rerun(section, null, "exit " + code + ": " + failureLine(printed));
            }
            return new Rerun(section, row, null);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static void usage(String problem) {
        System.err.println(
                problem + "usage: GoalCandidate BENCHMARKS.md [--wasm X.wasm] [--router SPEC] [--parallel N (1-64)]");
        System.exit(2);
    }

    private static int positive(String value) {
        try {
            int n = Integer.parseInt(value);
            if (n >= 1 && n <= 64) {
                return n;
            }
        } catch (NumberFormatException e) {
            // Reported below with the accepted range.
        }
        usage("--parallel " + value + " is not in 1-64; ");
        return 0;
    }

    public static void main(String[] args) throws IOException, InterruptedException, ExecutionException {
        if (args.length < 1 || args.length % 2 == 0) {
            usage("");
        }
        Path wasm = null;
        String router = GoalStatus.POLICY;
        int parallel = 2;
        for (int i = 1; i < args.length; i += 2) {
            switch (args[i]) {
                case "--wasm" -> wasm = Path.of(args[i + 1]).toAbsolutePath();
                case "--router" -> router = args[i + 1];
                case "--parallel" -> parallel = positive(args[i + 1]);
                default -> usage("unknown option " + args[i] + "; ");
            }
        }
        String doc = Files.readString(Path.of(args[0]), StandardCharsets.UTF_8);
        List<Section> sections = goalSections(doc);
        ExecutorService pool = Executors.newFixedThreadPool(parallel);
        List<Future<Rerun>> runs = new ArrayList<>();
        for (Section section : sections) {
            String candidate = router;
            Path module = wasm;
            runs.add(pool.submit(() -> rerun(section, candidate, module)));
        }
        List<GoalStatus.Cell> before = new ArrayList<>();
        List<GoalStatus.Cell> after = new ArrayList<>();
        List<String> notRerun = new ArrayList<>();
        for (Future<Rerun> run : runs) {
            Rerun r = run.get();
            Section s = r.section();
            before.addAll(s.documented());
            if (r.row() == null) {
                notRerun.add(s.name() + " (" + r.failure() + ")");
                after.addAll(s.documented());
            } else {
                System.err.println(s.name() + ": " + r.row());
                after.addAll(GoalStatus.cellsOf(s.name(), withPolicyRow(s.body(), r.row())));
            }
        }
        pool.shutdown();
        System.out.print(GoalStatus.markdown(after));
        System.out.println();
        System.out.println(String.format(
                Locale.ROOT,
                "Cells met: %d as documented, %d with the candidate. Verdicts that moved:",
                before.stream().filter(GoalStatus.Cell::met).count(),
                after.stream().filter(GoalStatus.Cell::met).count()));
        Map<String, String> documented = new HashMap<>();
        for (GoalStatus.Cell c : before) {
            documented.put(c.section() + " " + c.rate(), c.verdict());
        }
        for (GoalStatus.Cell c : after) {
            String cell = c.section() + " " + c.rate();
            if (!c.verdict().equals(documented.get(cell))) {
                System.out.println("- " + cell + ": " + documented.get(cell) + " → " + c.verdict());
            }
        }
        if (!notRerun.isEmpty()) {
            System.out.println("Not re-run (their documented rows kept): " + String.join("; ", notRerun));
        }
    }
}
