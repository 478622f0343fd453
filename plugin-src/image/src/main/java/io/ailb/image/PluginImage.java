package io.ailb.image;

import com.fasterxml.jackson.jr.ob.JSON;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The plugin as an image in Higress's official plugin layout, one file per layer: {@code spec.yaml} (the console's
 * schema), {@code README.md}, and last {@code plugin.tar.gz}, a tar holding only {@code plugin.wasm}. Higress's
 * fetcher takes the last layer, checks its media type and reads {@code plugin.wasm} from it; the other layers are for
 * people and consoles. The config is {@code {}}: Higress never reads it.
 */
final class PluginImage {
    static final String CONFIG_MEDIA_TYPE = "application/vnd.module.wasm.config.v1+json";
    static final String SPEC_MEDIA_TYPE = "application/vnd.module.wasm.spec.v1+yaml";
    static final String README_MEDIA_TYPE = "application/vnd.module.wasm.doc.v1+markdown";
    static final String WASM_LAYER_MEDIA_TYPE = "application/vnd.oci.image.layer.v1.tar+gzip";
    static final String WASM_FILE = "plugin.wasm";

    private PluginImage() {}

    static Image build(byte[] wasm, byte[] specYaml, byte[] readme) {
        Blob config = Blob.of(CONFIG_MEDIA_TYPE, "{}".getBytes(StandardCharsets.US_ASCII));
        byte[] wasmLayer = Gzip.compress(Tar.archive(List.of(Tar.Entry.file(WASM_FILE, wasm))));
        List<Blob> layers = List.of(
                Blob.titled(SPEC_MEDIA_TYPE, specYaml, "spec.yaml"),
                Blob.titled(README_MEDIA_TYPE, readme, "README.md"),
                Blob.titled(WASM_LAYER_MEDIA_TYPE, wasmLayer, "plugin.tar.gz"));

        Map<String, Object> manifest = new LinkedHashMap<>();
        manifest.put("schemaVersion", 2);
        manifest.put("mediaType", Image.MANIFEST_MEDIA_TYPE);
        manifest.put("config", config.descriptor());
        manifest.put("layers", layers.stream().map(Blob::descriptor).toList());
        return new Image(Blob.of(Image.MANIFEST_MEDIA_TYPE, json(manifest)), config, layers);
    }

    /** Compact JSON, keys in insertion order. */
    static byte[] json(Object value) {
        try {
            return JSON.std.asBytes(value);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write JSON", e);
        }
    }
}
