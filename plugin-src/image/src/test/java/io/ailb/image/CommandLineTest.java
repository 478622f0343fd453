package io.ailb.image;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** BuildImage then PushImage, as the Maven build runs them, to a registry in this JVM. */
class CommandLineTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @Test
    void buildThenPushLeavesTheImageUnderTheTagAndPrintsTheHigressUrl(@TempDir Path temp) throws Exception {
        Path layout = writeLayout(temp);
        assertTrue(output().startsWith("image: " + layout + ".tar sha256:"), output());
        assertTrue(output().contains("layers: spec.yaml 18 bytes, README.md 19 bytes, plugin.tar.gz "), output());

        try (TestRegistry registry = new TestRegistry().requireToken("ci", "s3cret")) {
            String target = registry.authority() + "/plugins/ai-load-balancer:0.1.0";
            int status = PushImage.run(
                    new String[] {"--layout", layout.toString(), "--to", target, "--plain-http", "true"},
                    Map.of(PushImage.USERNAME_VARIABLE, "ci", PushImage.PASSWORD_VARIABLE, "s3cret"),
                    print(out),
                    print(err));

            assertEquals(0, status, errors());
            Image image = OciLayout.read(layout);
            assertArrayEquals(image.manifest().content(), registry.manifest("plugins/ai-load-balancer", "0.1.0"));
            assertTrue(output().contains("pushed " + target + " " + image.digest() + ": 4 blobs uploaded"), output());
            assertTrue(output().contains("Higress url: oci://" + target), output());
        }
    }

    @Test
    void aRegistryThatWantsCredentialsNamesTheVariables(@TempDir Path temp) throws Exception {
        Path layout = writeLayout(temp);
        try (TestRegistry registry = new TestRegistry().requireToken("ci", "s3cret")) {
            int status = PushImage.run(
                    new String[] {
                        "--layout", layout.toString(), "--to", registry.authority() + "/x:1", "--plain-http", "true"
                    },
                    Map.of(),
                    print(out),
                    print(err));

            assertEquals(1, status);
            assertTrue(errors().contains("answered 401"), errors());
            assertTrue(errors().endsWith("; set AILB_REGISTRY_USERNAME and AILB_REGISTRY_PASSWORD\n"), errors());
        }
    }

    @Test
    void badCommandLinesExitWithTwoAndTheUsage() {
        assertEquals(2, BuildImage.run(new String[] {"--wasm", "a.wasm"}, print(out), print(err)));
        assertTrue(errors().contains("--wasm, --spec, --readme, --tag and --out are required"), errors());
        assertTrue(errors().contains(BuildImage.USAGE), errors());

        assertEquals(
                2,
                PushImage.run(
                        new String[] {"--layout", "l", "--to", "localhost:5000/x:1"},
                        Map.of(PushImage.USERNAME_VARIABLE, "only-a-user"),
                        print(out),
                        print(err)));
        assertTrue(errors().contains("set both AILB_REGISTRY_USERNAME and AILB_REGISTRY_PASSWORD"), errors());
        assertEquals(
                2,
                PushImage.run(new String[] {"--layout", "l", "--to", "x@sha256:00"}, Map.of(), print(out), print(err)));
        assertTrue(errors().contains("push to a tag, not a digest"), errors());
    }

    private Path writeLayout(Path temp) throws Exception {
        Path wasm = Files.write(temp.resolve("ai-load-balancer.wasm"), PluginImageTest.WASM);
        Path spec = Files.write(temp.resolve("spec.yaml"), PluginImageTest.SPEC);
        Path readme = Files.write(temp.resolve("README.md"), PluginImageTest.README);
        Path layout = temp.resolve("image/ai-load-balancer-oci");
        Files.createDirectories(layout.getParent());
        int status = BuildImage.run(
                new String[] {
                    "--wasm", wasm.toString(),
                    "--spec", spec.toString(),
                    "--readme", readme.toString(),
                    "--tag", "0.1.0",
                    "--out", layout.toString()
                },
                print(out),
                print(err));
        assertEquals(0, status, errors());
        return layout;
    }

    private static PrintStream print(ByteArrayOutputStream stream) {
        return new PrintStream(stream, true, StandardCharsets.UTF_8);
    }

    private String output() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String errors() {
        return err.toString(StandardCharsets.UTF_8);
    }
}
