package io.ailb.sim.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The routing goal's scoreboard, read from the sweep sections of docs/benchmarks.md: per section and rate, whether
 * the recommended policy ({@code plugin:cache_aware} with its defaults) meets the goal against the best anchor
 * ({@link SweepTable#isAnchor}). The goal, per cell: TTFT mean at most 0.9× the best anchor's (or, where that anchor is
 * already within 1.1× of the TTFT lower bound, at most 1.05× the bound), p99 at most the best anchor's, and a hit
 * rate at least that anchor's. A p99 within 1 % of the bound's p99 is reported as a tie at the bound: the slowest
 * requests then are the longest prompts alone on an idle instance, which no router can serve sooner.
 *
 * <p>{@code mvn -q -o -pl simulator compile exec:java@goal-status -Dexec.args="docs/benchmarks.md --section NAME
 * --summary NAME"}: the cell table into the first section, the per-workload summary ({@link #summary}) into the second.
 */
public final class GoalStatus {
    static final String POLICY = "plugin:cache_aware";
    static final String LOOKAHEAD = "lookahead_ttft";
    static final double MEAN_RATIO = 0.9;
    static final double NEAR_BOUND = 1.1;
    static final double OF_BOUND = 1.05;
    static final double P99_AT_BOUND = 1.01;

    /** One section's verdict at one rate; {@code lookaheadRatio} is NaN where the section has no lookahead row. */
    public record Cell(
            String section,
            String rate,
            double meanRatio,
            double p99Ratio,
            double anchorOverBound,
            double policyOverBound,
            double lookaheadRatio,
            double policyHit,
            double anchorHit,
            boolean meanMet,
            boolean p99Met,
            boolean p99AtBound,
            boolean hitMet) {
        /** The p99 holds: at most the best anchor's, or a tie at the bound. */
        public boolean p99Held() {
            return p99Met || p99AtBound;
        }

        public boolean met() {
            return meanMet && p99Held() && hitMet;
        }

        String verdict() {
            if (met()) {
                return p99Met ? "met" : "met (p99 tie at the bound)";
            }
            List<String> missed = new ArrayList<>();
            if (!meanMet) {
                missed.add("mean");
            }
            if (!p99Held()) {
                missed.add("p99");
            }
            if (!hitMet) {
                missed.add("hit");
            }
            return "**missed: " + String.join(", ", missed) + "**";
        }
    }

    static final Pattern SECTION = Pattern.compile("<!-- BEGIN (\\S+) -->(.*?)<!-- END \\1 -->", Pattern.DOTALL);

    private GoalStatus() {}

    /** Every cell of every section with a sweep table holding the policy, an anchor and the bound row. */
    public static List<Cell> read(String doc) {
        List<Cell> cells = new ArrayList<>();
        for (Map.Entry<String, String> section : sections(doc).entrySet()) {
            cells.addAll(cellsOf(section.getKey(), section.getValue()));
        }
        return cells;
    }

    /** Every section of the file, name → body, in file order. */
    static Map<String, String> sections(String doc) {
        Map<String, String> sections = new LinkedHashMap<>();
        Matcher m = SECTION.matcher(doc);
        while (m.find()) {
            sections.put(m.group(1), m.group(2));
        }
        return sections;
    }

    static List<Cell> cellsOf(String section, String body) {
        return cellsOf(section, body, POLICY);
    }

    /** The cells of {@code router}'s row of one section, judged as the policy's would be. */
    static List<Cell> cellsOf(String section, String body, String router) {
        List<String> rates = null;
        Map<String, String[]> rows = new LinkedHashMap<>();
        for (String line : body.split("\n")) {
            if (line.startsWith("| router |")) {
                rates = ratesOf(line);
            } else if (rates != null && line.startsWith("| ") && !line.startsWith("|---")) {
                String[] fields = line.substring(1).split("\\|");
                rows.put(fields[0].strip(), fields);
            }
        }
        List<Cell> cells = new ArrayList<>();
        if (rates == null || !rows.containsKey(router) || !rows.containsKey("*bound*")) {
            return cells;
        }
        for (int i = 0; i < rates.size(); i++) {
            String[] anchorByMean = null;
            double anchorP99 = Double.POSITIVE_INFINITY;
            for (Map.Entry<String, String[]> row : rows.entrySet()) {
                if (!SweepTable.isAnchor(row.getKey()) || Double.isNaN(value(row.getValue(), i, 1))) {
                    continue;
                }
                if (anchorByMean == null || value(row.getValue(), i, 1) < value(anchorByMean, i, 1)) {
                    anchorByMean = row.getValue();
                }
                anchorP99 = Math.min(anchorP99, value(row.getValue(), i, 2));
            }
            String[] policy = rows.get(router);
            String[] bound = rows.get("*bound*");
            if (anchorByMean == null || Double.isNaN(value(policy, i, 1))) {
                continue;
            }
            double anchorMean = value(anchorByMean, i, 1);
            double policyMean = value(policy, i, 1);
            double policyP99 = value(policy, i, 2);
            double boundMean = value(bound, i, 1);
            boolean nearBound = anchorMean <= NEAR_BOUND * boundMean;
            String[] lookahead = rows.get(LOOKAHEAD);
            cells.add(new Cell(
                    section,
                    rates.get(i),
                    policyMean / anchorMean,
                    policyP99 / anchorP99,
                    anchorMean / boundMean,
                    policyMean / boundMean,
                    lookahead == null ? Double.NaN : value(lookahead, i, 1) / anchorMean,
                    value(policy, i, 0),
                    value(anchorByMean, i, 0),
                    nearBound ? policyMean <= OF_BOUND * boundMean : policyMean <= MEAN_RATIO * anchorMean,
                    policyP99 <= anchorP99,
                    policyP99 <= P99_AT_BOUND * value(bound, i, 2),
                    value(policy, i, 0) >= value(anchorByMean, i, 0)));
        }
        return cells;
    }

    /** The rate labels of a sweep table's header: "x0.5" of "x0.5 hit % tok | x0.5 TTFT mean ms | x0.5 p99 ms". */
    static List<String> ratesOf(String header) {
        List<String> rates = new ArrayList<>();
        String[] columns = header.split("\\|");
        for (int c = 2; c < columns.length; c += 3) {
            String label = columns[c].strip();
            if (!label.isEmpty()) {
                rates.add(label.split(" ")[0]);
            }
        }
        return rates;
    }

    /** Column {@code k} (0 hit %, 1 mean, 2 p99) of rate {@code i}; NaN for "-" or a missing field. */
    static double value(String[] fields, int i, int k) {
        int at = 1 + 3 * i + k;
        if (at >= fields.length) {
            return Double.NaN;
        }
        String text = fields[at].strip().replace("%", "");
        try {
            return Double.parseDouble(text);
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }

    public static String markdown(List<Cell> cells) {
        StringBuilder out = new StringBuilder();
        int met = 0;
        int missedMean = 0;
        int lookaheadMissesToo = 0;
        int hitAlone = 0;
        for (Cell c : cells) {
            met += c.met() ? 1 : 0;
            hitAlone += !c.hitMet() && c.meanMet() && c.p99Held() ? 1 : 0;
            if (!c.meanMet()) {
                missedMean++;
                if (!Double.isNaN(c.lookaheadRatio()) && c.lookaheadRatio() > MEAN_RATIO) {
                    lookaheadMissesToo++;
                }
            }
        }
        out.append(String.format(
                Locale.ROOT,
                "%d of %d cells meet the goal, %d more all but the hit rate. Of the %d whose mean misses it, `%s`"
                        + " (every queue and cache known exactly) misses 0.9× the best anchor too in %d.%n%n",
                met,
                cells.size(),
                hitAlone,
                missedMean,
                LOOKAHEAD,
                lookaheadMissesToo));
        out.append("| section | rate | mean / best anchor | p99 / best anchor | hit % ours / anchor's"
                + " | anchor / bound | ours / bound | lookahead / best anchor | verdict |\n");
        out.append("|---|---|---:|---:|---:|---:|---:|---:|---|\n");
        for (Cell c : cells) {
            out.append(String.format(
                    Locale.ROOT,
                    "| %s | %s | %.2f | %.2f | %.1f / %.1f | %.2f | %.2f | %s | %s |%n",
                    c.section(),
                    c.rate(),
                    c.meanRatio(),
                    c.p99Ratio(),
                    c.policyHit(),
                    c.anchorHit(),
                    c.anchorOverBound(),
                    c.policyOverBound(),
                    Double.isNaN(c.lookaheadRatio()) ? "–" : String.format(Locale.ROOT, "%.2f", c.lookaheadRatio()),
                    c.verdict()));
        }
        return out.toString();
    }

    static final Pattern QUOTED = Pattern.compile("`([^`]+)`");
    static final int SUMMARY_LOADS = 5;

    /**
     * The summary table of the file's head: one row per line of the current summary, whose first column names a
     * section in backticks (and, for a configuration's row, its router: a second backticked name starting with
     * "plugin:"); the label is kept and every other column is rewritten from that section. Sections the goal judges
     * that no row names get a row of their own at the end, so the summary cannot leave one out. Each cell: the rate,
     * then mean / p99 against the best anchor (bold above 1: slower), lookahead_ttft's mean in brackets, and ✓ where
     * the policy's cell meets the goal.
     */
    public static String summary(String doc, String currentSummary) {
        Map<String, String> sections = sections(doc);
        StringBuilder out = new StringBuilder("| workload (section) |");
        for (int i = 1; i <= SUMMARY_LOADS; i++) {
            out.append(i == 1 ? " rates from the lowest: mean / p99 [lookahead] |" : " |");
        }
        out.append("\n|---|").append("---|".repeat(SUMMARY_LOADS)).append('\n');
        Set<String> listed = new HashSet<>();
        for (String line : currentSummary.split("\n")) {
            if (!line.startsWith("| ") || line.startsWith("| workload")) {
                continue;
            }
            String label = line.substring(1).split("\\|")[0].strip();
            String section = null;
            String router = POLICY;
            Matcher quoted = QUOTED.matcher(label);
            while (quoted.find()) {
                if (quoted.group(1).startsWith("plugin:")) {
                    router = quoted.group(1);
                } else if (section == null && sections.containsKey(quoted.group(1))) {
                    section = quoted.group(1);
                }
            }
            if (section == null) {
                throw new IllegalArgumentException("summary row names no section of the file: " + line);
            }
            List<Cell> cells = cellsOf(section, sections.get(section), router);
            if (cells.isEmpty()) {
                throw new IllegalArgumentException("section " + section + " has no judged row " + router);
            }
            listed.add(section);
            out.append(summaryRow(label, cells, router.equals(POLICY)));
        }
        for (Map.Entry<String, String> section : sections.entrySet()) {
            List<Cell> cells = cellsOf(section.getKey(), section.getValue());
            if (!cells.isEmpty() && !listed.contains(section.getKey())) {
                out.append(summaryRow("`" + section.getKey() + "`", cells, true));
            }
        }
        return out.toString();
    }

    private static String summaryRow(String label, List<Cell> cells, boolean judged) {
        if (cells.size() > SUMMARY_LOADS) {
            throw new IllegalArgumentException(label + ": more than " + SUMMARY_LOADS + " rates");
        }
        StringBuilder row = new StringBuilder("| ").append(label).append(" |");
        for (int i = 0; i < SUMMARY_LOADS; i++) {
            if (i >= cells.size()) {
                row.append(" |");
                continue;
            }
            Cell c = cells.get(i);
            row.append(' ').append(c.rate().replace('x', '×')).append(' ');
            row.append(ratio(c.meanRatio())).append(" / ").append(ratio(c.p99Ratio()));
            if (!Double.isNaN(c.lookaheadRatio())) {
                row.append(String.format(Locale.ROOT, " [%.2f]", c.lookaheadRatio()));
            }
            row.append(judged && c.met() ? " ✓ |" : " |");
        }
        return row.append('\n').toString();
    }

    /** A ratio to two places, bold when it rounds above 1 (slower than the best anchor). */
    private static String ratio(double value) {
        String text = String.format(Locale.ROOT, "%.2f", value);
        return Double.parseDouble(text) > 1 ? "**" + text + "**" : text;
    }

    public static void main(String[] args) throws IOException {
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 1; i + 1 < args.length; i += 2) {
            options.put(args[i], args[i + 1]);
        }
        if (args.length == 0
                || args.length % 2 == 0
                || !List.of("--section", "--summary").containsAll(options.keySet())) {
            System.err.println("usage: GoalStatus BENCHMARKS.md [--section NAME] [--summary NAME]");
            System.exit(2);
        }
        Path doc = Path.of(args[0]);
        String text = Files.readString(doc, StandardCharsets.UTF_8);
        String markdown = markdown(read(text));
        System.out.print(markdown);
        if (options.containsKey("--section")) {
            BenchmarksDoc.replaceSection(doc, options.get("--section"), markdown);
        }
        String summaryName = options.get("--summary");
        if (summaryName != null) {
            String summary = summary(text, sections(text).getOrDefault(summaryName, ""));
            System.out.print(summary);
            BenchmarksDoc.replaceSection(doc, summaryName, summary);
        }
    }
}
