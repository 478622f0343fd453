package io.ailb.image;

import com.fasterxml.jackson.jr.ob.JSON;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * An OCI image layout holding one image under one tag: {@code oci-layout}, {@code index.json} and
 * {@code blobs/sha256/<hex>}, as a directory and as a tarball of the same files, the forms registry tools take
 * ({@code oras cp --from-oci-layout}, {@code skopeo copy oci-archive:}, {@code crane push}).
 */
final class OciLayout {
    static final String INDEX_MEDIA_TYPE = "application/vnd.oci.image.index.v1+json";
    static final String REF_NAME = "org.opencontainers.image.ref.name";
    private static final String BLOBS = "blobs/sha256/";

    private OciLayout() {}

    /** The layout's files by path, in the order the tarball holds them. */
    static Map<String, byte[]> files(Image image, String tag) {
        Map<String, Object> manifest = image.manifest().descriptor();
        manifest.put("annotations", Map.of(REF_NAME, tag));
        Map<String, Object> index = new LinkedHashMap<>();
        index.put("schemaVersion", 2);
        index.put("mediaType", INDEX_MEDIA_TYPE);
        index.put("manifests", List.of(manifest));

        // Sorted by path; a blob listed twice (two equal layers) is one file.
        Map<String, byte[]> files = new TreeMap<>();
        files.put("oci-layout", "{\"imageLayoutVersion\":\"1.0.0\"}".getBytes(StandardCharsets.US_ASCII));
        files.put("index.json", PluginImage.json(index));
        files.put(BLOBS + image.manifest().hex(), image.manifest().content());
        for (Blob blob : image.blobs()) {
            files.put(BLOBS + blob.hex(), blob.content());
        }
        return files;
    }

    static byte[] tarball(Image image, String tag) {
        List<Tar.Entry> entries = new ArrayList<>();
        entries.add(Tar.Entry.directory("blobs/"));
        entries.add(Tar.Entry.directory(BLOBS));
        files(image, tag).forEach((path, content) -> entries.add(Tar.Entry.file(path, content)));
        return Tar.archive(entries);
    }

    /** Replaces {@code dir} by the layout, so that no blob of an earlier build stays in it. */
    static void writeDirectory(Image image, String tag, Path dir) throws IOException {
        deleteRecursively(dir);
        Files.createDirectories(dir.resolve(BLOBS));
        for (Map.Entry<String, byte[]> file : files(image, tag).entrySet()) {
            Files.write(dir.resolve(file.getKey()), file.getValue());
        }
    }

    /**
     * The image of a layout directory with exactly one manifest.
     *
     * @throws IOException if a file is missing or a blob's content does not match its digest or size
     */
    static Image read(Path dir) throws IOException {
        List<Object> manifests = list(JSON.std.mapFrom(Files.readAllBytes(dir.resolve("index.json"))), "manifests");
        if (manifests.size() != 1) {
            throw new IOException(dir + "/index.json lists " + manifests.size() + " manifests, expected 1");
        }
        Blob manifest = readBlob(dir, map(manifests.get(0)));
        Map<String, Object> content = JSON.std.mapFrom(manifest.content());
        Blob config = readBlob(dir, map(content.get("config")));
        List<Blob> layers = new ArrayList<>();
        for (Object layer : list(content, "layers")) {
            layers.add(readBlob(dir, map(layer)));
        }
        return new Image(manifest, config, layers);
    }

    private static Blob readBlob(Path dir, Map<String, Object> descriptor) throws IOException {
        String mediaType = String.valueOf(descriptor.get("mediaType"));
        String digest = String.valueOf(descriptor.get("digest"));
        if (!digest.matches("sha256:[0-9a-f]{64}")) {
            throw new IOException("unsupported digest " + digest);
        }
        Path file = dir.resolve(BLOBS + digest.substring("sha256:".length()));
        byte[] content = Files.readAllBytes(file);
        Object title = map(descriptor.getOrDefault("annotations", Map.of())).get(Blob.TITLE);
        Blob blob =
                title == null ? Blob.of(mediaType, content) : Blob.titled(mediaType, content, String.valueOf(title));
        long size = ((Number) descriptor.get("size")).longValue();
        if (!blob.digest().equals(digest) || blob.size() != size) {
            throw new IOException(file + " holds " + blob.size() + " bytes of digest " + blob.digest()
                    + ", the descriptor says " + size + " bytes of " + digest);
        }
        return blob;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object json) throws IOException {
        if (json instanceof Map<?, ?> map) {
            return (Map<String, Object>) map;
        }
        throw new IOException("expected a JSON object, found " + json);
    }

    @SuppressWarnings("unchecked")
    private static List<Object> list(Map<String, Object> json, String key) throws IOException {
        if (json.get(key) instanceof List<?> list) {
            return (List<Object>) list;
        }
        throw new IOException("expected a JSON array at " + key + ", found " + json.get(key));
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
