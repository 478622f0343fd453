package io.ailb.sim.report;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.sim.Simulate;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SweepPlotsTest {
    private static final String SECTION =
            """
            <!-- BEGIN trace-sweep -->
            ### Routing simulator sweep: trace mooncake

            Rates: x1 = 3.03 req/s, x2 = 6.05 req/s

            | router | x1 hit % tok | x1 TTFT mean ms | x1 p99 ms | x2 hit % tok | x2 TTFT mean ms | x2 p99 ms |
            |---|---:|---:|---:|---:|---:|---:|
            | plugin:cache_aware | 20.0% | 850.0 | 5000 | 19.0% | 950.0 | 9000 |
            | sglang_cache_aware | 18.0% | 1000.0 | 6000 | - | - | - |
            | *bound* | 30.0% | 400.0 | 3000 | 30.0% | 400.0 | 3000 |

            Plots: `plots/a/sweep-ttft-mean.png`, `plots/a/sweep-ttft-p99.png`.
            <!-- END trace-sweep -->
            """;

    @Test
    void aSweepSectionGivesEachRoutersMeanAndP99PerRateTheBoundAndItsPlots() {
        List<SweepPlots.Sweep> sweeps = SweepPlots.read(SECTION);
        assertEquals(1, sweeps.size());
        SweepPlots.Sweep sweep = sweeps.get(0);
        assertEquals("trace-sweep", sweep.section());
        assertEquals("trace mooncake", sweep.name());
        assertArrayEquals(new double[] {3.03, 6.05}, sweep.requestsPerSecond());
        assertEquals(
                List.of("plugin:cache_aware", "sglang_cache_aware"),
                List.copyOf(sweep.mean().keySet()));
        assertArrayEquals(new double[] {850, 950}, sweep.mean().get("plugin:cache_aware"));
        assertArrayEquals(new double[] {5000, 9000}, sweep.p99().get("plugin:cache_aware"));
        assertEquals(1000, sweep.mean().get("sglang_cache_aware")[0]);
        assertTrue(Double.isNaN(sweep.mean().get("sglang_cache_aware")[1]), "not run at x2");
        assertEquals(400, sweep.boundMean());
        assertEquals(3000, sweep.boundP99());
        assertEquals(Path.of("plots/a/sweep-ttft-mean.png"), sweep.plots().get(false));
        assertEquals(Path.of("plots/a/sweep-ttft-p99.png"), sweep.plots().get(true));
    }

    @Test
    void aSectionWithoutPlotsOrWithoutTheBoundIsNoSweepToRedraw() {
        assertEquals(List.of(), SweepPlots.read(SECTION.replaceAll("(?m)^Plots: .*$", "")));
        assertEquals(List.of(), SweepPlots.read(SECTION.replaceAll("(?m)^\\| \\*bound\\* .*$", "")));
    }

    /**
     * Redrawn from the section a sweep wrote, the plots are the sweep's own but for the table's rounding; a value
     * changed in the table shows.
     */
    @Test
    void theRedrawnPlotsAreTheSweepsAndFollowTheTable(@TempDir Path dir) throws IOException {
        Path doc = dir.resolve("benchmarks.md");
        Path plots = dir.resolve("plots");
        PrintStream sink = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        List<String> args = new ArrayList<>(List.of(
                "--workload trace --limit 60 --backends 2 --routers round_robin,sglang_cache_aware --sweep 1,4 --section sweep"
                        .split(" ")));
        // The paths apart: a temporary directory may hold a space.
        args.addAll(List.of("--doc", doc.toString(), "--plots", plots.toString()));
        int code = Simulate.run(args.toArray(new String[0]), sink, new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(0, code, err.toString(StandardCharsets.UTF_8));
        Path mean = plots.resolve("sweep-ttft-mean.png");
        BufferedImage drawn = ImageIO.read(mean.toFile());

        SweepPlots.Sweep sweep = SweepPlots.read(Files.readString(doc)).get(0);
        assertEquals(List.of(mean, plots.resolve("sweep-ttft-p99.png")), SweepPlots.redraw(sweep));
        int fromTable = differingPixels(drawn, ImageIO.read(mean.toFile()));

        sweep.mean().get("round_robin")[1] *= 1.5;
        SweepPlots.redraw(sweep);
        int changed = differingPixels(drawn, ImageIO.read(mean.toFile()));
        assertTrue(fromTable < 50, fromTable + " pixels differ");
        assertTrue(changed > 10 * Math.max(fromTable, 50), changed + " pixels differ");
    }

    private static int differingPixels(BufferedImage a, BufferedImage b) {
        assertEquals(a.getWidth(), b.getWidth());
        assertEquals(a.getHeight(), b.getHeight());
        int differing = 0;
        for (int y = 0; y < a.getHeight(); y++) {
            for (int x = 0; x < a.getWidth(); x++) {
                if (a.getRGB(x, y) != b.getRGB(x, y)) {
                    differing++;
                }
            }
        }
        return differing;
    }
}
