package io.ailb.image;

import java.util.regex.Pattern;

/**
 * Where to push: {@code host[:port]/repository[:tag]} as Docker and Higress's {@code oci://} URLs write it. A first
 * component without a dot or a port that is not {@code localhost} names a Docker Hub repository, as in Docker.
 *
 * @param registry the registry's API host and port, e.g. {@code localhost:5000} or {@code registry-1.docker.io}
 */
record ImageReference(String registry, String repository, String tag) {
    static final String DOCKER_HUB = "registry-1.docker.io";
    private static final Pattern REPOSITORY =
            Pattern.compile("[a-z0-9]+([._-][a-z0-9]+|__)*(/[a-z0-9]+([._-][a-z0-9]+|__)*)*");
    private static final Pattern TAG = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}");

    /** @throws IllegalArgumentException naming what is wrong with {@code reference} */
    static ImageReference parse(String reference) {
        if (reference.contains("@")) {
            throw new IllegalArgumentException("push to a tag, not a digest: " + reference);
        }
        String name = reference.startsWith("oci://") ? reference.substring("oci://".length()) : reference;
        String tag = "latest";
        int lastSlash = name.lastIndexOf('/');
        int tagColon = name.lastIndexOf(':');
        if (tagColon > lastSlash) {
            tag = name.substring(tagColon + 1);
            name = name.substring(0, tagColon);
        }
        String registry = DOCKER_HUB;
        int firstSlash = name.indexOf('/');
        String first = firstSlash < 0 ? "" : name.substring(0, firstSlash);
        if (first.contains(".") || first.contains(":") || first.equals("localhost")) {
            registry = first;
            name = name.substring(firstSlash + 1);
        } else if (firstSlash < 0) {
            name = "library/" + name;
        }
        if (!REPOSITORY.matcher(name).matches()) {
            throw new IllegalArgumentException("repository must be lower-case path components: " + reference);
        }
        if (!TAG.matcher(tag).matches()) {
            throw new IllegalArgumentException("tag must be 1..128 of [A-Za-z0-9_.-]: " + reference);
        }
        return new ImageReference(registry, name, tag);
    }

    @Override
    public String toString() {
        return registry + "/" + repository + ":" + tag;
    }
}
