package io.ailb.sim.report.plot;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.sim.report.RunResult;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;

/** Writes the example charts to target/plots-test/ (kept, so a person can look at them). */
class PlotsTest {
    private static final Path DIR = Paths.get("target", "plots-test");
    private static final List<String> ROUTERS = List.of(
            "random",
            "round_robin",
            "least_inflight",
            "max_prefix",
            "sglang_cache_aware",
            "llmd",
            "dynamo",
            "dynamo_kv_events",
            "greedy_ttft",
            "ai-load-balancer.wasm");

    @Test
    void hitRateBarsArePngsOfTheRequestedSize() throws IOException {
        Map<String, Double> hits = new LinkedHashMap<>();
        double[] values = {0.076, 0.081, 0.079, 0.055, 0.115, 0.14, 0.17, 0.19, 0.226, 0.13};
        for (int i = 0; i < ROUTERS.size(); i++) {
            hits.put(ROUTERS.get(i), values[i]);
        }
        Map<String, Double> bounds = new LinkedHashMap<>();
        bounds.put("infinite cache", 0.374);
        bounds.put("pooled LRU", 0.289);
        Path out = DIR.resolve("hit-rate.png");
        Plots.hitRates(out, hits, bounds);
        assertPng(out, Plots.WIDTH, Plots.HEIGHT);

        Path small = DIR.resolve("hit-rate-small.png");
        Plots.hitRates(small, "hit", Map.of("a", 0.5), Map.of(), 400, 300);
        assertPng(small, 400, 300);
        assertThrows(IllegalArgumentException.class, () -> Plots.hitRates(small, Map.of()));
    }

    @Test
    void boundLabelsThatWantTheSamePlaceAreStackedALineApartInsideTheFrame() {
        assertArrayEquals(new int[] {100, 114}, Plots.spreadLabels(new int[] {100, 100}, 14, 20, 300));
        assertArrayEquals(new int[] {114, 100}, Plots.spreadLabels(new int[] {105, 100}, 14, 20, 300));
        assertArrayEquals(new int[] {286, 300}, Plots.spreadLabels(new int[] {300, 300}, 14, 20, 300), "near the axis");
        assertArrayEquals(new int[] {20, 34}, Plots.spreadLabels(new int[] {5, 6}, 14, 20, 300), "near the top");
        assertArrayEquals(new int[] {50, 200}, Plots.spreadLabels(new int[] {50, 200}, 14, 20, 300), "apart: kept");
    }

    @Test
    void equalBoundsAtTheTopLeaveTheirLabelsWhole() throws IOException {
        Path out = DIR.resolve("hit-rate-equal-bounds.png");
        Map<String, Double> bounds = new LinkedHashMap<>();
        bounds.put("infinite cache", 1.0);
        bounds.put("pooled LRU", 1.0);
        Plots.hitRates(out, Map.of("plugin:cache_aware", 0.98, "round_robin", 0.4), bounds);

        BufferedImage img = ImageIO.read(out.toFile());
        for (int y = 0; y < img.getHeight(); y++) {
            for (int x = img.getWidth() - 4; x < img.getWidth(); x++) {
                assertEquals(0xffffff, img.getRGB(x, y) & 0xffffff, "a label reaches the right edge at y=" + y);
            }
        }
    }

    @Test
    void ttftGroupedBarsLinearAndLog() throws IOException {
        Map<String, double[]> ttft = new LinkedHashMap<>();
        for (int i = 0; i < ROUTERS.size(); i++) {
            double base = 600 + 150 * i;
            ttft.put(ROUTERS.get(i), new double[] {base, base * 2.3, base * 4});
        }
        ttft.put("max_prefix", new double[] {3_700_000, 3_900_000, 4_100_000}); // the hot spot: log scale
        Path log = DIR.resolve("ttft-log.png");
        Plots.ttftPercentiles(log, ttft);
        assertPng(log, Plots.WIDTH, Plots.HEIGHT);

        Map<String, double[]> few = new LinkedHashMap<>();
        few.put("round_robin", new double[] {1730, 4490, 7000});
        few.put("least_inflight", new double[] {900, 1970, 3100});
        few.put("greedy_ttft", new double[] {730, 1650, 2500});
        Path linear = DIR.resolve("ttft.png");
        Plots.ttftPercentiles(linear, few);
        assertPng(linear, Plots.WIDTH, Plots.HEIGHT);
        assertNotEquals(-1, Arrays.mismatch(Files.readAllBytes(log), Files.readAllBytes(linear)));
        assertThrows(
                IllegalArgumentException.class, () -> Plots.ttftPercentiles(linear, Map.of("x", new double[] {1, 2})));
    }

    @Test
    void loadOverTimeOnePanelPerRouter() throws IOException {
        int samples = 120;
        int backends = 8;
        double[] t = new double[samples];
        for (int s = 0; s < samples; s++) {
            t[s] = s * 5.0;
        }
        Map<String, double[][]> load = new LinkedHashMap<>();
        for (String router : List.of("round_robin", "max_prefix", "sglang_cache_aware", "greedy_ttft", "llmd")) {
            double[][] lines = new double[backends][samples];
            for (int b = 0; b < backends; b++) {
                for (int s = 0; s < samples; s++) {
                    lines[b][s] = router.equals("max_prefix")
                            ? (b == 0 ? s * 0.8 : 0)
                            : 4 + 3 * Math.sin(s / 9.0 + b) + (b % 3);
                }
            }
            load.put(router, lines);
        }
        Path out = DIR.resolve("load.png");
        Plots.loadOverTime(out, t, load);
        assertPng(out, Plots.WIDTH, Plots.loadOverTimeHeight(5));
        assertEquals(110 + 3 * 250, Plots.loadOverTimeHeight(5));
        assertThrows(
                IllegalArgumentException.class,
                () -> Plots.loadOverTime(out, new double[] {0, 1}, Map.of("r", new double[][] {{1, 2, 3}})));
    }

    @Test
    void fromRunResultsWritesAllThreeCharts() throws IOException {
        List<RunResult> runs = new java.util.ArrayList<>();
        String[] routers = {"round_robin", "sglang_cache_aware", "greedy_ttft"};
        for (int r = 0; r < routers.length; r++) {
            List<RunResult.LoadSample> samples = new java.util.ArrayList<>();
            int n = 40 + 10 * r; // runs end at different times
            for (int k = 0; k < n; k++) {
                int[] running = new int[4];
                int[] waiting = new int[4];
                double[] kv = new double[4];
                for (int b = 0; b < 4; b++) {
                    running[b] = 2 + (k + b * r) % 5;
                    waiting[b] = (k * (b + 1)) % 3;
                    kv[b] = 0.1 * b;
                }
                samples.add(new RunResult.LoadSample(k * 1000.0, running, waiting, kv, new long[4]));
            }
            double[] ttfts = new double[100];
            for (int i = 0; i < ttfts.length; i++) {
                ttfts[i] = (r + 1) * 100.0 + i * 10;
            }
            runs.add(new RunResult(
                    routers[r],
                    "conversation",
                    4,
                    0,
                    1,
                    100,
                    100,
                    1_000_000,
                    100_000L * (r + 1),
                    30_000,
                    60_000,
                    RunResult.Latency.of(ttfts),
                    RunResult.Latency.of(ttfts),
                    new long[4],
                    new long[4],
                    0,
                    null,
                    samples,
                    List.of()));
        }
        Path dir = DIR.resolve("runs");
        List<Path> written = Plots.writeAll(dir, runs, Map.of("infinite cache", 0.374));
        assertEquals(List.of(dir.resolve("hit-rate.png"), dir.resolve("ttft.png"), dir.resolve("load.png")), written);
        assertPng(written.get(0), Plots.WIDTH, Plots.HEIGHT);
        assertPng(written.get(1), Plots.WIDTH, Plots.HEIGHT);
        assertPng(written.get(2), Plots.WIDTH, Plots.loadOverTimeHeight(3));
        Path kv = dir.resolve("kv.png");
        Plots.loadOverTime(kv, runs, Plots.Load.KV_USAGE);
        assertPng(kv, Plots.WIDTH, Plots.loadOverTimeHeight(3));
    }

    @Test
    void linesOverRateDrawOneLinePerRouterWithABoundLine() throws IOException {
        Map<String, double[]> rates = new LinkedHashMap<>();
        Map<String, double[]> ttft = new LinkedHashMap<>();
        String[] routers = {"plugin:prefix_cache", "sglang_cache_aware", "llmd", "dynamo", "greedy_ttft"};
        for (int r = 0; r < routers.length; r++) {
            rates.put(routers[r], new double[] {0.5, 1, 2, 4});
            ttft.put(routers[r], new double[] {100 + r, 150 + 10 * r, 400 + 50 * r, 5000 + 900 * r});
        }
        Path out = DIR.resolve("sweep.png");
        Plots.linesOverRate(out, "TTFT mean vs rate", "TTFT mean (ms)", rates, ttft, Map.of("lower bound", 80.0));
        assertPng(out, Plots.WIDTH, Plots.HEIGHT);
        Map<String, double[]> wrong = Map.of("x", new double[] {1, 2});
        assertThrows(
                IllegalArgumentException.class,
                () -> Plots.linesOverRate(out, "t", "y", Map.of("x", new double[] {1}), wrong, Map.of()));
    }

    @Test
    void niceAxes() {
        Axis a = Axis.linear(0, 37.4, 6);
        assertEquals(40, a.max, 1e-9);
        assertEquals(List.of(0.0, 10.0, 20.0, 30.0, 40.0), a.ticks());
        Axis l = Axis.logarithmic(650, 4_100_000);
        assertEquals(100, l.min, 1e-9);
        assertEquals(10_000_000, l.max, 1e-6);
        assertEquals("1500", Axis.format(1500));
        assertEquals("20k", Axis.format(20_000));
        assertEquals("4M", Axis.format(4_000_000));
        assertEquals("0.25", Axis.format(0.25));
    }

    private static void assertPng(Path file, int width, int height) throws IOException {
        assertTrue(Files.size(file) > 1000, file + " is too small");
        byte[] head = Arrays.copyOf(Files.readAllBytes(file), 8);
        assertArrayEquals(new byte[] {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}, head, file.toString());
        BufferedImage img = ImageIO.read(file.toFile());
        assertEquals(width, img.getWidth(), file.toString());
        assertEquals(height, img.getHeight(), file.toString());
        // not blank: some pixels are neither white nor the same colour
        int white = 0xffffff;
        int coloured = 0;
        for (int y = 0; y < height; y += 3) {
            for (int x = 0; x < width; x += 3) {
                if ((img.getRGB(x, y) & 0xffffff) != white) {
                    coloured++;
                }
            }
        }
        assertTrue(coloured > 100, file + " looks blank");
    }
}
