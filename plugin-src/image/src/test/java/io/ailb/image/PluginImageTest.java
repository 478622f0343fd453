package io.ailb.image;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import com.fasterxml.jackson.jr.ob.JSON;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PluginImageTest {
    static final byte[] WASM = {0, 'a', 's', 'm', 1, 0, 0, 0, 42};
    static final byte[] SPEC = "apiVersion: 1.0.0\n".getBytes(StandardCharsets.UTF_8);
    static final byte[] README = "# ai-load-balancer\n".getBytes(StandardCharsets.UTF_8);

    @Test
    void theManifestListsTheConfigAndTheLayersOfHigressPluginLayoutInOrder() throws Exception {
        Image image = PluginImage.build(WASM, SPEC, README);

        Map<String, Object> manifest = JSON.std.mapFrom(image.manifest().content());
        assertEquals(2, manifest.get("schemaVersion"));
        assertEquals("application/vnd.oci.image.manifest.v1+json", manifest.get("mediaType"));
        Map<?, ?> config = (Map<?, ?>) manifest.get("config");
        assertEquals("application/vnd.module.wasm.config.v1+json", config.get("mediaType"));
        assertEquals(sha256("{}".getBytes(StandardCharsets.US_ASCII)), config.get("digest"));
        assertEquals(2, config.get("size"));

        List<?> layers = (List<?>) manifest.get("layers");
        assertEquals(
                List.of(
                        "application/vnd.module.wasm.spec.v1+yaml",
                        "application/vnd.module.wasm.doc.v1+markdown",
                        "application/vnd.oci.image.layer.v1.tar+gzip"),
                layers.stream()
                        .map(layer -> ((Map<?, ?>) layer).get("mediaType"))
                        .toList());
        assertEquals(
                List.of("spec.yaml", "README.md", "plugin.tar.gz"),
                layers.stream()
                        .map(layer -> ((Map<?, ?>) ((Map<?, ?>) layer).get("annotations")).get(Blob.TITLE))
                        .toList());
    }

    @Test
    void everyDescriptorMatchesItsBlobAndTheDocLayersAreTheFilesAsTheyAre() throws Exception {
        Image image = PluginImage.build(WASM, SPEC, README);

        Map<String, Object> manifest = JSON.std.mapFrom(image.manifest().content());
        List<Object> descriptors = new java.util.ArrayList<>((List<?>) manifest.get("layers"));
        descriptors.add(0, manifest.get("config"));
        List<Blob> blobs = image.blobs();
        assertEquals(descriptors.size(), blobs.size());
        for (int i = 0; i < blobs.size(); i++) {
            Map<?, ?> descriptor = (Map<?, ?>) descriptors.get(i);
            byte[] content = blobs.get(i).content();
            assertEquals(sha256(content), descriptor.get("digest"), "blob " + i);
            assertEquals(content.length, ((Number) descriptor.get("size")).intValue(), "blob " + i);
        }
        assertArrayEquals(SPEC, image.layers().get(0).content());
        assertArrayEquals(README, image.layers().get(1).content());
        assertEquals(sha256(image.manifest().content()), image.digest());
    }

    @Test
    void theLastLayerIsATarGzHoldingExactlyPluginWasm() {
        Image image = PluginImage.build(WASM, SPEC, README);

        byte[] layer = image.layers().get(image.layers().size() - 1).content();
        List<Archives.Entry> entries = Archives.untar(Archives.gunzip(layer));

        assertEquals(1, entries.size(), entries.toString());
        Archives.Entry wasm = entries.get(0);
        assertEquals("plugin.wasm", wasm.name());
        assertFalse(wasm.directory());
        assertEquals(0644, wasm.mode());
        assertEquals(0, wasm.uid());
        assertEquals(0, wasm.gid());
        assertEquals(0, wasm.mtimeMillis());
        assertArrayEquals(WASM, wasm.content());
        assertEquals(0, layer[3], "gzip flags: no file name");
    }

    @Test
    void theSameFilesGiveTheSameDigestAndAnotherModuleAnother() {
        Image first = PluginImage.build(WASM, SPEC, README);
        Image second = PluginImage.build(WASM.clone(), SPEC.clone(), README.clone());
        byte[] otherWasm = WASM.clone();
        otherWasm[otherWasm.length - 1]++;

        assertEquals(first.digest(), second.digest());
        assertArrayEquals(first.manifest().content(), second.manifest().content());
        assertNotEquals(
                first.digest(), PluginImage.build(otherWasm, SPEC, README).digest());
    }

    static String sha256(byte[] content) throws Exception {
        return "sha256:"
                + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content));
    }
}
