package io.ailb.image;

import java.util.ArrayList;
import java.util.List;

/** An image manifest and the blobs it references: the config, then the layers in their order. */
record Image(Blob manifest, Blob config, List<Blob> layers) {
    static final String MANIFEST_MEDIA_TYPE = "application/vnd.oci.image.manifest.v1+json";

    Image {
        layers = List.copyOf(layers);
    }

    /** The digest registries and Higress pin the image by. */
    String digest() {
        return manifest.digest();
    }

    /** The blobs a registry or a layout must hold besides the manifest: the config, then the layers. */
    List<Blob> blobs() {
        List<Blob> blobs = new ArrayList<>();
        blobs.add(config);
        blobs.addAll(layers);
        return blobs;
    }
}
