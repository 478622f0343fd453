package io.ailb.image;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/** Content and what an OCI descriptor says of it: media type, digest, size, annotations. */
final class Blob {
    static final String TITLE = "org.opencontainers.image.title";

    private final String mediaType;
    private final byte[] content;
    private final String digest;
    private final Map<String, String> annotations;

    private Blob(String mediaType, byte[] content, Map<String, String> annotations) {
        this.mediaType = mediaType;
        this.content = content;
        this.digest = digestOf(content);
        this.annotations = annotations;
    }

    static Blob of(String mediaType, byte[] content) {
        return new Blob(mediaType, content, Map.of());
    }

    /** A layer with the file name tools such as oras give it when they pull the image. */
    static Blob titled(String mediaType, byte[] content, String title) {
        return new Blob(mediaType, content, Map.of(TITLE, title));
    }

    static String digestOf(byte[] content) {
        try {
            return "sha256:"
                    + HexFormat.of()
                            .formatHex(MessageDigest.getInstance("SHA-256").digest(content));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }

    String mediaType() {
        return mediaType;
    }

    byte[] content() {
        return content.clone();
    }

    String digest() {
        return digest;
    }

    /** The digest's hex part: the blob's file name in an OCI layout. */
    String hex() {
        return digest.substring("sha256:".length());
    }

    long size() {
        return content.length;
    }

    Map<String, String> annotations() {
        return annotations;
    }

    /** The descriptor of this blob, keys in the order of the OCI image spec. */
    Map<String, Object> descriptor() {
        Map<String, Object> descriptor = new LinkedHashMap<>();
        descriptor.put("mediaType", mediaType);
        descriptor.put("digest", digest);
        descriptor.put("size", size());
        if (!annotations.isEmpty()) {
            descriptor.put("annotations", annotations);
        }
        return descriptor;
    }
}
