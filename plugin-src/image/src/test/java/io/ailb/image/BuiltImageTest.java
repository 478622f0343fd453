package io.ailb.image;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.jr.ob.JSON;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The image this build wrote (exec-maven-plugin, process-classes) carries this build's module and docs. */
class BuiltImageTest {
    private static final Path LAYOUT = Path.of(System.getProperty("ailb.image.layout"));
    private static final Path WASM = Path.of(System.getProperty("ailb.wasm.ai-load-balancer"));
    private static final Path HIGRESS_CONFIG = Path.of(System.getProperty("ailb.higress-config"));
    private static final String TAG = System.getProperty("ailb.image.tag");

    @Test
    void theLastLayerHoldsExactlyTheBuiltModuleAsPluginWasm() throws Exception {
        Image image = OciLayout.read(LAYOUT);

        Blob last = image.layers().get(image.layers().size() - 1);
        assertEquals("application/vnd.oci.image.layer.v1.tar+gzip", last.mediaType());
        List<Archives.Entry> entries = Archives.untar(Archives.gunzip(last.content()));
        assertEquals(
                List.of("plugin.wasm"),
                entries.stream().map(Archives.Entry::name).toList());
        assertArrayEquals(Files.readAllBytes(WASM), entries.get(0).content());
    }

    @Test
    void theDocLayersAreHigressConfigsSpecAndReadme() throws Exception {
        Image image = OciLayout.read(LAYOUT);

        assertEquals(3, image.layers().size());
        assertEquals(
                "application/vnd.module.wasm.spec.v1+yaml",
                image.layers().get(0).mediaType());
        assertArrayEquals(
                Files.readAllBytes(HIGRESS_CONFIG.resolve("spec.yaml")),
                image.layers().get(0).content());
        assertEquals(
                "application/vnd.module.wasm.doc.v1+markdown",
                image.layers().get(1).mediaType());
        assertArrayEquals(
                Files.readAllBytes(HIGRESS_CONFIG.resolve("README.md")),
                image.layers().get(1).content());
    }

    @Test
    void theTarballIsTheLayoutAndTheIndexTagsTheImageWithTheVersion() throws Exception {
        Image image = OciLayout.read(LAYOUT);
        byte[] tarball = Files.readAllBytes(BuildImage.tarballOf(LAYOUT));

        for (Archives.Entry entry : Archives.untar(tarball)) {
            if (!entry.directory()) {
                assertArrayEquals(Files.readAllBytes(LAYOUT.resolve(entry.name())), entry.content(), entry.name());
            }
        }
        Map<?, ?> manifest = (Map<?, ?>) ((List<?>) JSON.std
                        .mapFrom(Files.readAllBytes(LAYOUT.resolve("index.json")))
                        .get("manifests"))
                .get(0);
        assertEquals(image.digest(), manifest.get("digest"));
        assertEquals(Map.of("org.opencontainers.image.ref.name", TAG), manifest.get("annotations"));
    }

    @Test
    void aSecondBuildFromTheSameFilesGivesTheSameTarballAndDigest(@TempDir Path temp) throws Exception {
        Path again = temp.resolve("ai-load-balancer-oci");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int status = BuildImage.run(
                new String[] {
                    "--wasm", WASM.toString(),
                    "--spec", HIGRESS_CONFIG.resolve("spec.yaml").toString(),
                    "--readme", HIGRESS_CONFIG.resolve("README.md").toString(),
                    "--tag", TAG,
                    "--out", again.toString()
                },
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(out, true, StandardCharsets.UTF_8));

        assertEquals(0, status, out.toString(StandardCharsets.UTF_8));
        assertEquals(OciLayout.read(LAYOUT).digest(), OciLayout.read(again).digest());
        assertArrayEquals(
                Files.readAllBytes(BuildImage.tarballOf(LAYOUT)), Files.readAllBytes(BuildImage.tarballOf(again)));
    }
}
