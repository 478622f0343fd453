package io.ailb.sim.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.emulator.WasmArtifacts;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hash benchmark measures what it claims: in V8 the probe hashes each body with the algorithm the cell names and
 * answers the digest the JVM computes, cells come back in the alternating order, and a wrong digest fails the cell.
 */
@Timeout(180)
class V8HashBenchTest {
    private static final int SMALL = 2 << 10;
    private static final int LARGER = 33 << 10;

    private static V8HashBench.Options options(Path dir) {
        V8HashBench.Options options = new V8HashBench.Options();
        options.workDir = dir;
        options.sizes = new int[] {SMALL, LARGER};
        options.rounds = 2;
        options.bytesPerRequest = 8 << 10;
        options.warmUpSeconds = 0;
        options.warmUpMin = 0;
        options.warmUpMax = 0;
        options.measureSeconds = 0;
        options.minSamples = 1;
        options.maxSamples = 1;
        options.hangSeconds = 60;
        return options;
    }

    @Test
    void theProbeHashesEveryBodyInV8WithTheJvmDigest(@TempDir Path dir) throws Exception {
        V8Host node = V8Host.find(System.getProperty("node.executable", "node")).orElse(null);
        Assumptions.assumeTrue(node != null, "node is not on PATH (or -Dnode.executable is wrong): V8 host skipped");
        V8HashBench.Options options = options(dir);
        options.wasm = WasmArtifacts.path("probe");
        List<V8Host.Body> bodies = V8HashBench.bodies(options);
        V8Host.Run run = new V8Host.Run(
                options.wasm,
                new V8Host.Policy("probe", "{}"),
                null,
                false,
                options.limits(),
                V8CostBench.LOG_LEVEL_INFO,
                false,
                List.of(),
                options.hangSeconds);

        V8Host.Report report = node.run(run, bodies, dir, line -> {});
        List<V8HashBench.Cell> cells = V8HashBench.cells(options, bodies, report);

        assertNull(report.failure(), report.toString());
        assertEquals(
                List.of(
                        "none 2048 4",
                        "sha1 2048 4",
                        "prefix 2048 4",
                        "none 33792 1",
                        "sha1 33792 1",
                        "prefix 33792 1",
                        "none 2048 4",
                        "prefix 2048 4",
                        "sha1 2048 4",
                        "none 33792 1",
                        "prefix 33792 1",
                        "sha1 33792 1"),
                cells.stream()
                        .map(c -> c.hash() + " " + c.size() + " " + c.repeat())
                        .toList());
        for (V8HashBench.Cell cell : cells) {
            assertNull(cell.failure(), cell.toString());
            assertEquals(1, cell.measured().samples(), cell.toString());
        }
        assertEquals(cells.size(), report.localReplies().size(), report.toString());
        assertTrue(report.localReplies().get(1).body().matches("len=2048 sha1=[0-9a-f]{40}"), report.toString());
    }

    @Test
    void aDigestThatDiffersFromTheJvmsFailsItsCell(@TempDir Path dir) throws Exception {
        V8HashBench.Options options = options(dir);
        options.sizes = new int[] {SMALL};
        options.rounds = 1;
        List<V8Host.Body> bodies = V8HashBench.bodies(options);
        byte[] body = V8HashBench.body(SMALL);
        String prefix = V8HashBench.expectedAnswer(V8HashBench.PREFIX, body);
        List<V8Host.LocalReply> replies = List.of(
                new V8Host.LocalReply(0, 200, "len=2048"),
                new V8Host.LocalReply(1, 200, prefix.replace("prefix=", "sha1=")),
                new V8Host.LocalReply(2, 200, prefix));
        V8Host.Report report = new V8Host.Report(
                "v20",
                "11",
                "cpu",
                2,
                1,
                1,
                "?",
                bodies.stream().map(b -> cell(b.shape())).toList(),
                replies,
                List.of(),
                List.of(),
                null,
                null);

        List<V8HashBench.Cell> cells = V8HashBench.cells(options, bodies, report);

        assertNull(cells.get(0).failure());
        assertTrue(
                cells.get(1).failure().startsWith("guest answered 'len=2048 sha1="),
                cells.get(1).failure());
        assertNull(cells.get(2).failure());
    }

    private static V8Host.Cell cell(String shape) {
        return new V8Host.Cell(shape, SMALL, 0, 1, 1000, 1000, 1000, 1000, 0, 1, 0, 0, 0, 1, 0, "-", "ok");
    }
}
