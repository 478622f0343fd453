package io.ailb.image;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.jr.ob.JSON;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OciLayoutTest {
    private static final Image IMAGE =
            PluginImage.build(PluginImageTest.WASM, PluginImageTest.SPEC, PluginImageTest.README);

    @Test
    void theTarballHoldsTheLayoutFilesWithIndexPointingAtTheManifestUnderTheTag() throws Exception {
        List<Archives.Entry> entries = Archives.untar(OciLayout.tarball(IMAGE, "1.2.3"));

        List<String> blobs = Stream.concat(Stream.of(IMAGE.manifest()), IMAGE.blobs().stream())
                .map(blob -> "blobs/sha256/" + blob.hex())
                .sorted()
                .toList();
        List<String> expected = Stream.of(
                        List.of("blobs/", "blobs/sha256/"), blobs, List.of("index.json", "oci-layout"))
                .flatMap(List::stream)
                .toList();
        assertEquals(expected, entries.stream().map(Archives.Entry::name).toList());

        Map<String, byte[]> files = new TreeMap<>();
        entries.forEach(entry -> files.put(entry.name(), entry.content()));
        assertEquals(Map.of("imageLayoutVersion", "1.0.0"), JSON.std.mapFrom(files.get("oci-layout")));
        Map<String, Object> index = JSON.std.mapFrom(files.get("index.json"));
        assertEquals(2, index.get("schemaVersion"));
        assertEquals("application/vnd.oci.image.index.v1+json", index.get("mediaType"));
        List<?> manifests = (List<?>) index.get("manifests");
        assertEquals(1, manifests.size());
        Map<?, ?> manifest = (Map<?, ?>) manifests.get(0);
        assertEquals("application/vnd.oci.image.manifest.v1+json", manifest.get("mediaType"));
        assertEquals(IMAGE.digest(), manifest.get("digest"));
        assertEquals(Map.of("org.opencontainers.image.ref.name", "1.2.3"), manifest.get("annotations"));
        for (String blob : blobs) {
            assertEquals(
                    "sha256:" + blob.substring("blobs/sha256/".length()),
                    PluginImageTest.sha256(files.get(blob)),
                    "a blob's file name is its digest");
        }
        byte[] manifestBytes = files.get("blobs/sha256/" + IMAGE.manifest().hex());
        assertEquals(((Number) manifest.get("size")).intValue(), manifestBytes.length);
    }

    @Test
    void theDirectoryHoldsTheTarballsFilesAndReadsBackAsTheSameImage(@TempDir Path temp) throws Exception {
        Path dir = temp.resolve("layout");
        Files.createDirectories(dir.resolve("blobs/sha256"));
        Files.writeString(dir.resolve("blobs/sha256/stale"), "from an earlier build");

        OciLayout.writeDirectory(IMAGE, "1.2.3", dir);

        Map<String, byte[]> written = new TreeMap<>();
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path file : paths.filter(Files::isRegularFile).toList()) {
                written.put(dir.relativize(file).toString().replace('\\', '/'), Files.readAllBytes(file));
            }
        }
        Map<String, byte[]> inTarball = new TreeMap<>();
        Archives.untar(OciLayout.tarball(IMAGE, "1.2.3")).stream()
                .filter(entry -> !entry.directory())
                .forEach(entry -> inTarball.put(entry.name(), entry.content()));
        assertEquals(inTarball.keySet(), written.keySet());
        inTarball.forEach((name, content) -> assertArrayEquals(content, written.get(name), name));

        Image read = OciLayout.read(dir);
        assertEquals(IMAGE.digest(), read.digest());
        assertEquals(
                IMAGE.blobs().stream().map(Blob::digest).toList(),
                read.blobs().stream().map(Blob::digest).toList());
        assertEquals(
                IMAGE.layers().stream().map(Blob::mediaType).toList(),
                read.layers().stream().map(Blob::mediaType).toList());
    }

    @Test
    void aBlobThatDoesNotMatchItsDigestIsRefused(@TempDir Path dir) throws Exception {
        OciLayout.writeDirectory(IMAGE, "1.2.3", dir);
        Blob layer = IMAGE.layers().get(0);
        Files.write(dir.resolve("blobs/sha256/" + layer.hex()), new byte[] {1, 2, 3});

        IOException refused = assertThrows(IOException.class, () -> OciLayout.read(dir));

        assertTrue(refused.getMessage().contains(layer.digest()), refused.getMessage());
    }
}
